package git_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// timed is a committer that times the commits of another.
type timed struct {
	c     wiki.Committer
	times []time.Duration
}

func (t *timed) Committed(ctx context.Context, call *store.Call, changes []store.Change) {
	start := time.Now()
	t.c.Committed(ctx, call, changes)
	t.times = append(t.times, time.Since(start))
}

func (t *timed) Flush(ctx context.Context, call *store.Call) { t.c.Flush(ctx, call) }

// BenchmarkCommit44k times the commit of one page write (the page and
// index.md) in a wiki of every tldr and Obsidian Help page (44k files) in
// git: p50 and p95 of the commit alone, and of the whole write with it.
func BenchmarkCommit44k(b *testing.B) {
	if os.Getenv("LLMWIKI_SHARED") == "" {
		b.Skip("skipping: set LLMWIKI_SHARED to the shared corpora folder (the 44k-page wiki is built from tldr and Obsidian Help)")
	}
	needGit(b)
	isolate(b)
	root := b.TempDir()
	if _, err := wiki.Init(root); err != nil {
		b.Fatal(err)
	}
	n := wikitest.CopyTree(b, wikitest.Corpus(b, "tldr"), filepath.Join(root, "pages", "tldr"), ".md")
	n += wikitest.CopyTree(b, wikitest.Corpus(b, "obsidian-help"), filepath.Join(root, "pages", "obsidian-help"), ".md")
	run(b, root, "init", "-q", "-b", "main")
	run(b, root, "config", "user.name", "Ada Lovelace")
	run(b, root, "config", "user.email", "ada@example.org")
	st, err := wiki.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := git.Enable(context.Background(), st); err != nil {
		b.Fatal(err)
	}
	r, err := git.Open(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	tc := &timed{c: r}
	st.SetCommitter(tc)
	write := func(i int) time.Duration {
		c := store.NewCall("write_page", "s-bench", nil)
		c.Client = "claude-code 1.0.3"
		start := time.Now()
		if _, err := st.WritePage(store.WithCall(context.Background(), c), wiki.PageInput{Title: fmt.Sprintf("Bench page n%d", i+1), Summary: "A page of the benchmark.", Content: "Written by the benchmark.\n"}); err != nil {
			b.Fatal(err)
		}
		if w := c.WarningsSnapshot(); len(w) > 0 {
			b.Fatalf("warnings: %v", w)
		}
		return time.Since(start)
	}
	write(-1) // the catalogue's first scan and the committer's first read of HEAD
	tc.times = nil
	var writes []time.Duration
	i := 0
	for b.Loop() {
		writes = append(writes, write(i))
		i++
	}
	pct := func(d []time.Duration, p float64) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(n), "files")
	b.ReportMetric(pct(tc.times, 0.5), "commit-p50-ms")
	b.ReportMetric(pct(tc.times, 0.95), "commit-p95-ms")
	b.ReportMetric(pct(writes, 0.5), "write-p50-ms")
	b.ReportMetric(pct(writes, 0.95), "write-p95-ms")
}
