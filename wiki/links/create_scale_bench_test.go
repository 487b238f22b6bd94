package links

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var createWiki = flag.String("create.wiki", "", "BenchmarkCreateScale: a wiki (e.g. one of `go run ./dev/scalewiki`) to copy by hard links into a temp folder and write to; default wikis of the scale corpus of LLMWIKI_SCALE_PAGES pages (173, 10000)")

// BenchmarkCreateScale is a write_page create as the tool runs it
// ([wiki.Store.WritePage], then the link graph's view and the new page's
// unresolved links) on a large wiki whose link graph is built, as in a
// server after its start. Before the timer: the graph's first walk, one
// create (the catalogue's first load) and the regeneration of index.md it
// makes pending ([wiki.Store.FlushIndex]: index.md then lists every page,
// as on a wiki in use). Each create links three existing pages and goes to
// one folder, as dev/scale's do. p50-ms and p95-ms are the creates'
// latencies, cpu-ms/op the process's CPU time (user and system) over the
// creates; sub-benchmark "regen" times a create followed by the
// regeneration of index.md it makes pending (what a create waits for when
// it arrives during one).
//
//	LLMWIKI_SHARED=/work/shared go test ./wiki/links -run '^$' -bench CreateScale -benchtime 200x \
//	  [-create.wiki /tmp/sw144000] [-cpuprofile cpu.prof]
func BenchmarkCreateScale(b *testing.B) {
	var dirs []string
	if *createWiki != "" {
		dirs = []string{*createWiki}
	} else {
		for _, n := range wikitest.ScalePages(b, 173, 10000) {
			dirs = append(dirs, wikitest.ScaleWiki(b, n, func(dir string) error { _, err := wiki.Init(dir); return err }))
		}
	}
	for _, src := range dirs {
		dir := src
		if *createWiki != "" {
			dir = linkCopy(b, src)
		}
		ctx := context.Background()
		st, err := wiki.Open(dir, wiki.WithIndexLater(wiki.IndexLaterPages, time.Hour, time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		g := Open(st)
		st.AddDerived(g)
		v, err := g.View(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var targets []string
		for _, p := range v.Pages() {
			targets = append(targets, filepath.Base(p.Slug))
		}
		n := len(targets)
		i := 0
		create := func() {
			body := fmt.Sprintf("# Bench create %d\n\nA page of the benchmark. See [[%s]], [[%s]], [[%s]].\n",
				i, targets[(i*7919)%n], targets[(i*104729)%n], targets[(i*15485863)%n])
			w, err := st.WritePage(ctx, wiki.PageInput{Title: fmt.Sprintf("Bench create %d", i), Slug: fmt.Sprintf("bench-run/create-%05d", i), Content: body})
			if err != nil {
				b.Fatal(err)
			}
			v, err := g.View(ctx)
			if err != nil {
				b.Fatal(err)
			}
			_ = v.UnresolvedLinks(w.Path, nil)
			if len(v.Links(w.Path)) != 3 {
				b.Fatalf("%s: %d links in the view, want 3", w.Path, len(v.Links(w.Path)))
			}
			i++
		}
		create()
		if err := st.FlushIndex(ctx); err != nil {
			b.Fatal(err)
		}
		for _, sub := range []struct {
			name  string
			regen bool
		}{{"create", false}, {"regen", true}} {
			b.Run(fmt.Sprintf("pages=%d/%s", n, sub.name), func(b *testing.B) {
				var lat []time.Duration
				cpu0 := cpuTime()
				for b.Loop() {
					t := time.Now()
					create()
					if sub.regen {
						if err := st.FlushIndex(ctx); err != nil {
							b.Fatal(err)
						}
					}
					lat = append(lat, time.Since(t))
				}
				cpu := cpuTime() - cpu0
				slices.Sort(lat)
				ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
				b.ReportMetric(ms(0.5), "p50-ms")
				b.ReportMetric(ms(0.95), "p95-ms")
				b.ReportMetric(float64(cpu)/1e6/float64(len(lat)), "cpu-ms/op")
			})
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// linkCopy copies the wiki src into a temp folder with hard links (the
// wiki's writers replace files, never write them in place), leaving out
// its search index.
func linkCopy(b *testing.B, src string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "wiki")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == filepath.Join(".llmwiki", "search") {
			return fs.SkipDir
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return os.Link(p, to)
	})
	if err != nil {
		b.Fatal(err)
	}
	return dst
}
