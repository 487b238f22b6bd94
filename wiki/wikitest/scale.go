package wikitest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/internal/scalecorpus"
)

// ScalePagesEnv names the wiki sizes scale benchmarks run at: page counts,
// comma-separated ("173,10000,44681,144000").
const ScalePagesEnv = "LLMWIKI_SCALE_PAGES"

// ScalePages returns the sizes from [ScalePagesEnv], else def.
func ScalePages(tb testing.TB, def ...int) []int {
	tb.Helper()
	v := os.Getenv(ScalePagesEnv)
	if strings.TrimSpace(v) == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			tb.Fatalf("%s=%q: want page counts separated by commas", ScalePagesEnv, v)
		}
		out = append(out, n)
	}
	return out
}

// ScaleWiki makes a wiki of n pages from the shared corpora
// (internal/scalecorpus) in a temp folder and returns its path: init lays
// out the empty wiki (wiki.Init: this package imports nothing of package
// wiki), then the corpus fills pages/. It skips without the corpora.
func ScaleWiki(tb testing.TB, n int, init func(dir string) error) string {
	tb.Helper()
	shared := SharedDir(tb)
	dir := filepath.Join(tb.TempDir(), "wiki")
	if err := init(dir); err != nil {
		tb.Fatal(err)
	}
	if _, err := scalecorpus.Build(shared, dir, n); err != nil {
		tb.Fatal(err)
	}
	return dir
}
