package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// BenchmarkBrowse10k serves each browse page of a wiki of 10,000 linked
// pages with 10,000 audit lines (go test ./server/ui -run '^$' -bench Browse10k).
func BenchmarkBrowse10k(b *testing.B) {
	quiet := teststore.Quiet()
	st, dir := teststore.New(b, nil, wiki.WithLogger(quiet))
	wikitest.WriteLinkedPages(b, dir, 10_000)
	g := links.Open(st)
	st.AddDerived(g)
	for i := range 10_000 {
		call := store.NewCall("read_page", "s-bench", map[string]any{"page": i})
		call.Client = "bench"
		if err := st.Audit(call, nil); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	base := ""
	for _, body := range []string{"one\n", "two\n", "three\n"} {
		out, err := st.WritePage(ctx, wiki.PageInput{Title: "Versions", Slug: "versions", Content: body, BaseSHA256: base})
		if err != nil {
			b.Fatal(err)
		}
		base = out.SHA256
	}
	h, err := New(Config{Store: st, Links: g, Log: quiet})
	if err != nil {
		b.Fatal(err)
	}
	for _, target := range []string{"/pages", "/pages?q=page+99", "/pages/page-42", "/history/versions", "/activity", "/activity?tool=write_page", "/health", "/eval"} {
		// The first request builds the link graph and the catalogue: warm
		// them so each page is measured as a running server serves it.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		b.Run(target, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
				if rec.Code != 200 {
					b.Fatalf("%s: %d", target, rec.Code)
				}
			}
		})
	}
}
