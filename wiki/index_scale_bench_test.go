package wiki

import (
	"context"
	"fmt"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// BenchmarkWriteIndexScale is the cost of one write_page create (index:
// auto, so index.md follows) on wikis of the scale corpus
// ([wikitest.ScaleWiki]); the sizes from LLMWIKI_SCALE_PAGES, default 173
// and 10000. One create before the timer loads the catalogue, which the
// first write of a server pays once; the Close after the loop (which
// writes the pending index.md) is not timed.
//
//	LLMWIKI_SHARED=/work/shared LLMWIKI_SCALE_PAGES=173,10000,44681 \
//	  go test ./wiki -run '^$' -bench WriteIndexScale -benchtime 40x
func BenchmarkWriteIndexScale(b *testing.B) {
	for _, n := range wikitest.ScalePages(b, 173, 10000) {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			dir := wikitest.ScaleWiki(b, n, func(dir string) error { _, err := Init(dir); return err })
			s := openStore(b, dir)
			ctx := context.Background()
			create := func(i int) {
				_, err := s.WritePage(ctx, PageInput{
					Title:   fmt.Sprintf("Bench note %d", i),
					Slug:    fmt.Sprintf("bench/note-%d", i),
					Summary: "a note written by the benchmark",
					Content: fmt.Sprintf("# Bench note %d\n\nSee [[bench/note-%d]].\n", i, max(i-1, 0)),
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			create(0)
			i := 1
			for b.Loop() {
				create(i)
				i++
			}
		})
	}
}
