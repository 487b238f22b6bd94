package wiki

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/internal/scalecorpus"
)

// BenchmarkWriteIndexScale is the cost of one write_page create (index:
// auto, so index.md follows) on wikis of the scale corpus. The sizes come
// from LLMWIKI_SCALE_PAGES (comma-separated, default "173,10000"); the
// corpus from LLMWIKI_SHARED. One create before the timer loads the
// catalogue, which the first write of a server pays once.
//
//	LLMWIKI_SHARED=/work/shared LLMWIKI_SCALE_PAGES=173,10000,44681 \
//	  go test ./wiki -run '^$' -bench WriteIndexScale -benchtime 40x
func BenchmarkWriteIndexScale(b *testing.B) {
	shared := os.Getenv("LLMWIKI_SHARED")
	if shared == "" {
		b.Skip("LLMWIKI_SHARED is not set")
	}
	sizes := os.Getenv("LLMWIKI_SCALE_PAGES")
	if sizes == "" {
		sizes = "173,10000"
	}
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			dir := b.TempDir() + "/wiki"
			if _, err := Init(dir); err != nil {
				b.Fatal(err)
			}
			if _, err := scalecorpus.Build(shared, dir, n); err != nil {
				b.Fatal(err)
			}
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
