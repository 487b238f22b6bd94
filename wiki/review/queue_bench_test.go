package review

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// queueWiki makes a wiki whose audit log holds n writes marked for review:
// real lines, written by real calls of the store each replacing one of 100
// pages (at most realWrites of them, as a write with its fsyncs is slow),
// and as many copies of those lines with fresh ids as make n.
func queueWiki(tb testing.TB, n, realWrites int) *wiki.Store {
	tb.Helper()
	files := map[string]string{}
	for i := range 100 {
		files[fmt.Sprintf("pages/p%03d.md", i)] = "# Page\n\nversion 0\n"
	}
	st, dir := teststore.New(tb, files)
	for i := range min(n, realWrites) {
		c := store.NewCall("edit_page", "s-bench", map[string]any{"page": i % 100})
		c.SetExtra(MarkKey, wiki.ReviewAfter)
		ctx := store.WithCall(context.Background(), c)
		err := st.Update(ctx, func(tx *store.Tx) error {
			return tx.Replace(fmt.Sprintf("pages/p%03d.md", i%100), []byte("# Page\n\nversion "+strconv.Itoa(i+1)+"\n"), "")
		})
		if aerr := st.Audit(c, err); err != nil || aerr != nil {
			tb.Fatal(err, aerr)
		}
	}
	if n <= realWrites {
		return st
	}
	logs, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(store.AuditDir), "*.jsonl"))
	if len(logs) != 1 {
		tb.Fatalf("audit files %v", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		tb.Fatal(err)
	}
	var real [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(`"edit_page"`)) {
			real = append(real, l)
		}
	}
	var out bytes.Buffer
	for i := realWrites; i < n; i++ {
		l := real[i%len(real)]
		id := fmt.Sprintf("a-%012x", i)
		j := bytes.Index(l, []byte(`"id":"a-`)) + len(`"id":"`)
		out.Write(l[:j])
		out.WriteString(id)
		out.Write(l[j+len(id):])
		out.WriteByte('\n')
	}
	f, err := os.OpenFile(logs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(out.Bytes()); err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkQueue10k is the first page of the review queue of a wiki with
// 10,000 marked writes: cold (a fresh Service parses the whole audit log),
// warm (the index is cached; only the stat of each file is repeated) and
// page (warm, with the diffs of the 50 writes shown).
func BenchmarkQueue10k(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("LLMWIKI_BENCH_WRITES")); err == nil && v > 0 {
		n = v
	}
	st := queueWiki(b, n, 200)
	check := func(s *Service) {
		ws, _, total, err := s.Queue(50, "")
		if err != nil || total != n || len(ws) != 50 {
			b.Fatalf("queue: %d of %d, %v", len(ws), total, err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			check(New(st, nil, nil))
		}
	})
	b.Run("warm", func(b *testing.B) {
		s := New(st, nil, nil)
		check(s)
		for b.Loop() {
			check(s)
		}
	})
	// What the review page shows: the first page and each write's diffs.
	b.Run("page", func(b *testing.B) {
		s := New(st, nil, nil)
		check(s)
		for b.Loop() {
			ws, _, _, err := s.Queue(50, "")
			if err != nil {
				b.Fatal(err)
			}
			for _, w := range ws {
				d, err := s.WriteDiffs(w.ID)
				if err != nil || len(d) != 1 || d[0].Added != 1 || d[0].Removed != 1 {
					b.Fatalf("diffs of %s: %+v %v", w.ID, d, err)
				}
			}
		}
	})
}
