package tools

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkWriteScale creates pages with write_page through the MCP
// handler (store, fsyncs and the link graph as serve registers it) in
// scale wikis from the shared corpora ([wikitest.ScaleWiki]). It reports
// the first create's time (the graph is loaded then) and the median and
// 95th percentile of the creates after it. Sizes: LLMWIKI_SCALE_PAGES
// (comma-separated page counts), default 173 and 10000; needs
// LLMWIKI_SHARED.
//
//	LLMWIKI_SHARED=/work/shared LLMWIKI_SCALE_PAGES=173,10000,44681,144000 \
//	  go test ./tools -run '^$' -bench WriteScale -benchtime 40x
func BenchmarkWriteScale(b *testing.B) {
	for _, n := range wikitest.ScalePages(b, 173, 10000) {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) { benchWriteScale(b, n) })
	}
}

func benchWriteScale(b *testing.B, n int) {
	dir := wikitest.ScaleWiki(b, n, func(dir string) error { _, err := wiki.Init(dir); return err })
	quiet := teststore.Quiet()
	st, err := wiki.Open(dir, wiki.WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() }) // after the client's Close, which connectVersion registers
	c := connectVersion(b, Deps{Store: st, Log: quiet}, Options{}, mcp.LATEST_PROTOCOL_VERSION)
	ctx := context.Background()
	k := 0
	create := func() time.Duration {
		k++
		req := mcp.CallToolRequest{}
		req.Params.Name = "write_page"
		req.Params.Arguments = map[string]any{
			"title":   fmt.Sprintf("Scale note %d", k),
			"content": fmt.Sprintf("A note that links to [[Scale note %d]], [[git]] and [[missing page %d]].\n", k-1, k),
		}
		t0 := time.Now()
		r, err := c.CallTool(ctx, req)
		d := time.Since(t0)
		if err != nil || r.IsError {
			b.Fatalf("write_page: %v %s", err, text(r))
		}
		return d
	}
	first := create()
	b.ResetTimer()
	ds := make([]time.Duration, 0, b.N)
	for range b.N {
		ds = append(ds, create())
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
}
