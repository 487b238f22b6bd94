// Package wikitest holds helpers for tests and benchmarks: finding the shared
// corpora beside the repository, writing and copying trees, and
// fingerprinting a folder so a test can prove nothing changed, and the
// scale wikis of the benchmarks (scale.go). It imports nothing of llmwiki
// but internal/scalecorpus, so package wiki's own tests use it too; the
// shared test store, which needs package wiki, is wikitest/teststore.
package wikitest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding"
)

// RepoRoot returns the repository's root folder (where go.mod is).
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("cannot locate wikitest source")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SkipShort skips the test under go test -short, the contributors' fast
// path, saying which kind of test it is ("end-to-end", "corpus", "scale",
// "load", "crash") so the skip explains itself.
func SkipShort(tb testing.TB, kind string) {
	tb.Helper()
	if testing.Short() {
		tb.Skipf("%s: skipped with -short", kind)
	}
}

// SharedDir returns ../shared beside the repository, or skips the test with
// a clear message when it is absent (a user's clone has none). Set
// LLMWIKI_SHARED to use another location.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	SkipShort(tb, "corpus")
	dir := os.Getenv("LLMWIKI_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(tb), "..", "shared")
	}
	if fi, err := os.Stat(filepath.Join(dir, "corpora")); err != nil || !fi.IsDir() {
		tb.Skipf("skipping: the shared corpora are not at %s (they sit beside the repository in CI; set LLMWIKI_SHARED to point elsewhere)", dir)
	}
	return dir
}

// Corpus returns a folder under shared/corpora, skipping when absent.
func Corpus(tb testing.TB, rel string) string {
	tb.Helper()
	dir := filepath.Join(SharedDir(tb), "corpora", filepath.FromSlash(rel))
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("skipping: corpus %s is missing", dir)
	}
	return dir
}

// CopyTree copies the regular files under src into dst (created), keeping
// relative paths, as a user drops files into a folder. It returns how many
// files it copied. Only files whose name has one of exts (e.g. ".md") are
// copied when exts is not empty.
func CopyTree(tb testing.TB, src, dst string, exts ...string) int {
	tb.Helper()
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if len(exts) > 0 {
			ok := false
			for _, e := range exts {
				ok = ok || strings.EqualFold(filepath.Ext(p), e)
			}
			if !ok {
				return nil
			}
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, in); err != nil {
			f.Close()
			return err
		}
		n++
		return f.Close()
	})
	if err != nil {
		tb.Fatalf("copy %s: %v", src, err)
	}
	return n
}

// TreeHashes maps every regular file and symlink under dir (relative,
// slash-separated) to the sha256 of its content (symlinks: of their target
// text), skipping paths for which skip returns true.
func TreeHashes(tb testing.TB, dir string, skip func(rel string) bool) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			out[rel] = "link:" + t
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(s[:])
		case d.IsDir() && rel != ".":
			out[rel+"/"] = "dir"
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("hash tree %s: %v", dir, err)
	}
	return out
}

// DiffHashes lists paths added, removed or changed between two TreeHashes.
func DiffHashes(before, after map[string]string) []string {
	var d []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			d = append(d, "removed "+k)
		} else if w != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	sort.Strings(d)
	return d
}

// FiguresEnv names the folder where tests record the figures
// docs/promises.md is generated from (see dev/promises).
const FiguresEnv = "LLMWIKI_FIGURES"

// Figure records measured values (cases tried, kills survived, writes lost)
// under kind, when $LLMWIKI_FIGURES names a folder: one JSON line per call
// is appended to figures.jsonl there. Without the variable it does nothing.
func Figure(tb testing.TB, kind string, values map[string]any) {
	tb.Helper()
	dir := os.Getenv(FiguresEnv)
	if dir == "" {
		return
	}
	rec := map[string]any{"test": tb.Name(), "kind": kind}
	for k, v := range values {
		rec[k] = v
	}
	line, err := json.Marshal(rec)
	if err != nil {
		tb.Fatalf("figure: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "figures.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatalf("figure: %v", err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		tb.Fatalf("figure: %v", err)
	}
}

// Cases records that a test tried n hostile-input cases of kind
// ("containment", "names", "frontmatter", "content", "protocol"), for the
// README's figures.
func Cases(tb testing.TB, kind string, n int) {
	tb.Helper()
	Figure(tb, kind, map[string]any{"cases": n})
}

// WriteFile writes content at rel (slash-separated, relative to dir) as a
// person would, straight to disk, creating its folders.
func WriteFile(tb testing.TB, dir, rel, content string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// KoreanPage is a tldr-like page in Korean, for CP949 samples.
const KoreanPage = "# tar\n\n> 압축 파일을 만들고 풉니다.\n> 더 많은 정보: <https://www.gnu.org/software/tar>.\n\n- 파일을 아카이브로 묶기:\n\n`tar cf {{대상.tar}} {{파일1}} {{파일2}}`\n\n- 아카이브의 내용을 자세히 보기:\n\n`tar tvf {{원본.tar}}`\n"

// Encode returns s in the legacy encoding e, as a file written by an older
// editor would hold it.
func Encode(tb testing.TB, e encoding.Encoding, s string) []byte {
	tb.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// WaitFor polls cond every 50 ms for up to 15 s and fails the test, naming
// what it waited for, when cond never holds.
func WaitFor(tb testing.TB, cond func() bool, what string) {
	tb.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	tb.Fatalf("timed out waiting for %s", what)
}

// WriteLinkedPages writes n generated pages into root's pages/ folder, as a
// person would: each links to others and to a page that does not exist, so
// a lint of them has work to do.
func WriteLinkedPages(tb testing.TB, root string, n int) {
	tb.Helper()
	var body strings.Builder
	for i := range n {
		body.Reset()
		fmt.Fprintf(&body, "---\ntitle: Page %d\n---\n# Page %d\n\n", i, i)
		for j := range 8 {
			fmt.Fprintf(&body, "Paragraph %d about topic %d links [[page-%d]] and [[missing-%d]].\n\n", j, i%50, (i*7+j)%n, i)
		}
		WriteFile(tb, root, fmt.Sprintf("pages/page-%d.md", i), body.String())
	}
}

// CorpusPages reads every markdown file under the shared corpus folders
// rels (skipping the test when the corpus is absent) and returns their text
// and total size, for benchmarks over real pages.
func CorpusPages(tb testing.TB, rels ...string) (pages []string, size int) {
	tb.Helper()
	for _, rel := range rels {
		filepath.WalkDir(Corpus(tb, rel), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				if data, err := os.ReadFile(p); err == nil {
					pages = append(pages, string(data))
					size += len(data)
				}
			}
			return nil
		})
	}
	return pages, size
}
