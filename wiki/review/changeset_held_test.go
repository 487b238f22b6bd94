package review

import (
	"context"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// BenchmarkHolderNoPending is the cost the held-file check adds to every
// write of a reviewed file when no change set is pending.
func BenchmarkHolderNoPending(b *testing.B) {
	st, _ := teststore.New(b, nil, teststore.WithFixedClock())
	s := New(st, nil, nil)
	ctx := context.Background()
	if h := s.holder(ctx, "pages/x.md"); h != "" {
		b.Fatalf("held by %s", h)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s.holder(ctx, "pages/x.md") != "" {
			b.Fatal("held")
		}
	}
}
