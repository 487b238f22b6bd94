package search

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"gopkg.in/yaml.v3"
)

// The quality runner: recall@5, recall@10 and MRR per kind for the shared
// golden set (../shared/golden/search.yaml) and llmwiki's own
// (testdata/search/golden.yaml), over a wiki made of the corpora. It runs
// only when asked, because it builds an index of 44,000 pages:
//
//	go test ./wiki/search -run TestQuality -quality -v
//
// -quality.dir keeps the wiki and its index between runs; -quality.floor
// fails the run when a set's recall@5 falls below it (.ci/run sets a floor
// well below the measured figures, so it catches a broken search, not a
// small drift).
var (
	qualityRun   = flag.Bool("quality", false, "run the search quality runner over the shared corpora")
	qualityDir   = flag.String("quality.dir", "", "folder for the quality wiki (kept between runs); default a temp folder")
	qualityFloor = flag.Float64("quality.floor", 0, "fail when a golden set's recall@5 is below this")
	qualityMiss  = flag.Bool("quality.misses", false, "print each question whose relevant pages are not all in the top 5")
)

type goldenQ struct {
	ID       string   `yaml:"id"`
	Query    string   `yaml:"query"`
	Relevant []string `yaml:"relevant"`
	Kind     string   `yaml:"kind"`
}

func loadGolden(t testing.TB, file string) []goldenQ {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read golden set: %v", err)
	}
	var qs []goldenQ
	if err := yaml.Unmarshal(data, &qs); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	return qs
}

// corpusWiki makes (or reuses) a wiki whose pages/ holds the corpora folders
// given, each under its own path ("pages/tldr/pages/common/tar.md"). Files
// are hard-linked when the file system allows it, else copied.
func corpusWiki(t testing.TB, dir string, corpora ...string) string {
	t.Helper()
	shared := wikitest.SharedDir(t)
	marker := filepath.Join(dir, ".llmwiki", "quality-wiki-complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	os.RemoveAll(dir) // an interrupted copy: start again
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range corpora {
		src := filepath.Join(shared, "corpora", filepath.FromSlash(c))
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(shared, "corpora"), p)
			dst := filepath.Join(dir, "pages", rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.Link(p, dst); err != nil {
				data, rerr := os.ReadFile(p)
				if rerr != nil {
					return rerr
				}
				if err := os.WriteFile(dst, data, 0o644); err != nil {
					return err
				}
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("copy corpus %s: %v", c, err)
		}
	}
	t.Logf("quality wiki: %d pages from %v", n, corpora)
	if err := os.WriteFile(marker, []byte("complete\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// translationKey names what a page is a translation of: an Obsidian Help
// page by its permalink, a tldr page by its path below pages.<lang>/.
func translationKey(shared, rel string) string {
	if strings.HasPrefix(rel, "tldr/") {
		parts := strings.SplitN(rel, "/", 3)
		if len(parts) == 3 {
			return "tldr:" + parts[2]
		}
	}
	data, err := os.ReadFile(filepath.Join(shared, "corpora", filepath.FromSlash(rel)))
	if err == nil {
		if d, err := mdoc.ParseDoc(rel, data); err == nil {
			if p := mdoc.MetaString(d.Meta, "permalink"); p != "" {
				return "obsidian:" + strings.Trim(p, "/")
			}
		}
	}
	return "path:" + rel
}

type scores struct {
	n                 int
	r5, r10, mrr      float64
	hit5              int
	byKind            map[string]*scores
	misses            []string
	latency           []time.Duration
	translationsSkips int
}

func (s *scores) add(kind string, r5, r10, rr float64) {
	for _, t := range []*scores{s, s.kind(kind)} {
		t.n++
		t.r5 += r5
		t.r10 += r10
		t.mrr += rr
		if r5 > 0 {
			t.hit5++
		}
	}
}

func (s *scores) kind(k string) *scores {
	if s.byKind == nil {
		s.byKind = map[string]*scores{}
	}
	if s.byKind[k] == nil {
		s.byKind[k] = &scores{}
	}
	return s.byKind[k]
}

func (s *scores) line(name string) string {
	n := float64(s.n)
	return fmt.Sprintf("  %-14s n=%-3d recall@5=%.3f recall@10=%.3f MRR=%.3f hit@5=%d/%d", name, s.n, s.r5/n, s.r10/n, s.mrr/n, s.hit5, s.n)
}

// evalSet runs every question of a set and scores it.
func evalSet(t testing.TB, x *Index, shared string, qs []goldenQ) *scores {
	t.Helper()
	sc := &scores{}
	keyCache := map[string]string{}
	key := func(rel string) string {
		if k, ok := keyCache[rel]; ok {
			return k
		}
		k := translationKey(shared, rel)
		keyCache[rel] = k
		return k
	}
	for _, q := range qs {
		rel := map[string]bool{}
		relKeys := map[string]bool{}
		for _, r := range q.Relevant {
			rel[r] = true
			relKeys[key(r)] = true
		}
		t0 := time.Now()
		res, err := x.Search(context.Background(), Query{Text: q.Query, Limit: 50})
		sc.latency = append(sc.latency, time.Since(t0))
		if err != nil {
			t.Errorf("%s: %v", q.ID, err)
			continue
		}
		var ranked []string
		for _, h := range res.Hits {
			p := strings.TrimPrefix(h.Path, "pages/")
			if !rel[p] && relKeys[key(p)] {
				sc.translationsSkips++
				continue // a translation of a relevant page: neither hit nor miss
			}
			ranked = append(ranked, p)
		}
		found5, found10, rr := 0, 0, 0.0
		for i, p := range ranked {
			if !rel[p] {
				continue
			}
			if rr == 0 {
				rr = 1 / float64(i+1)
			}
			if i < 5 {
				found5++
			}
			if i < 10 {
				found10++
			}
		}
		r5 := float64(found5) / float64(len(rel))
		r10 := float64(found10) / float64(len(rel))
		sc.add(q.Kind, r5, r10, rr)
		if r5 < 1 {
			top := ranked[:min(5, len(ranked))]
			sc.misses = append(sc.misses, fmt.Sprintf("%s (%s) %q want %v\n      got %v", q.ID, q.Kind, q.Query, q.Relevant, top))
		}
	}
	return sc
}

func printScores(t testing.TB, name string, sc *scores) {
	var b strings.Builder
	fmt.Fprintf(&b, "search quality: %s (%d questions; %d translations of relevant pages skipped)\n", name, sc.n, sc.translationsSkips)
	b.WriteString(sc.line("all") + "\n")
	kinds := make([]string, 0, len(sc.byKind))
	for k := range sc.byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		b.WriteString(sc.byKind[k].line(k) + "\n")
	}
	if *qualityMiss {
		for _, m := range sc.misses {
			b.WriteString("    miss " + m + "\n")
		}
	}
	fmt.Print(b.String())
}

func TestQuality(t *testing.T) {
	if !*qualityRun {
		t.Skip("skipping: the search quality runner runs with -quality (it indexes the 44k-page corpora)")
	}
	shared := wikitest.SharedDir(t)
	dir := *qualityDir
	if dir == "" {
		dir = t.TempDir()
	}
	root := corpusWiki(t, dir, "obsidian-help", "tldr")
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := Open(st, Options{})
	st.AddDerived(x)
	defer x.Close()
	t0 := time.Now()
	if err := x.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := x.Status(); s.State != StateReady {
		t.Fatalf("index not ready: %+v", s)
	}
	fmt.Printf("search quality: index of %d pages ready in %s\n", x.Status().Pages, time.Since(t0).Round(time.Millisecond))
	sets := []struct{ name, file string }{
		{"shared/golden/search.yaml", filepath.Join(shared, "golden", "search.yaml")},
		{"testdata/search/golden.yaml", filepath.Join(wikitest.RepoRoot(t), "testdata", "search", "golden.yaml")},
	}
	for _, s := range sets {
		if _, err := os.Stat(s.file); errors.Is(err, fs.ErrNotExist) {
			t.Logf("skipping %s: not found", s.name)
			continue
		}
		sc := evalSet(t, x, shared, loadGolden(t, s.file))
		printScores(t, s.name, sc)
		if r5 := sc.r5 / float64(sc.n); r5 < *qualityFloor {
			t.Errorf("%s: recall@5 %.3f is below the floor %.2f", s.name, r5, *qualityFloor)
		}
	}
}
