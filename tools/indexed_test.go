package tools

import (
	"context"
	"log/slog"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// indexedStore is an empty wiki (in a parent folder, as a server sees it)
// with its search index registered and built, and the quiet logger both use.
func indexedStore(t *testing.T) (st *wiki.Store, dir string, idx *search.Index, quiet *slog.Logger) {
	t.Helper()
	quiet = teststore.Quiet()
	st, dir, _ = teststore.NewInParent(t, nil, wiki.WithLogger(quiet))
	idx = search.Open(st, search.Options{Logger: quiet})
	st.AddDerived(idx)
	if err := idx.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st, dir, idx, quiet
}
