package wiki

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// TestWriteContextLogsBuild: every context.md write appends its own build
// entry to log.md in the same write (MindBase's step 4), in log.md's
// format, naming the folded sources; a refused write logs nothing; a
// build folding more sources than a log entry may list still succeeds,
// the rest counted.
func TestWriteContextLogsBuild(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	mustWrite(t, dir, "sources/a.md", "# A\n")
	mustWrite(t, dir, "sources/b.md", "# B\n")
	logOf := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "log.md"))
		return string(b)
	}
	before := logOf()
	w, err := s.WriteContext(ctx, ContextInput{Content: "# Context\n\nOne.\nTwo.\n", FoldedSources: []string{"sources/a.md", "sources/b.md"}, BuiltBy: "test-client 1"})
	if err != nil {
		t.Fatal(err)
	}
	entry := strings.TrimPrefix(logOf(), before)
	want := "## [2026-01-02 03:04] build | context.md: 2 sources folded, 4 of 400 lines\n\nWritten with atomic_write_context by test-client 1.\n- sources/a.md\n- sources/b.md\n"
	if !strings.HasSuffix(entry, want) || strings.Count(entry, "## [") != 1 {
		t.Errorf("log.md gained %q, want it to end with %q", entry, want)
	}
	if w.LogEntry != "## [2026-01-02 03:04] build | context.md: 2 sources folded, 4 of 400 lines" {
		t.Errorf("log_entry %q", w.LogEntry)
	}
	if got := s.LogEntries(1); len(got) != 1 || got[0] != w.LogEntry {
		t.Errorf("LogEntries %v", got)
	}

	// Refused (over the cap): neither context.md nor log.md changes.
	tree := treeOf(t, dir)
	if _, err := s.WriteContext(ctx, ContextInput{Content: strings.Repeat("line\n", 401)}); store.CodeOf(err) != store.CodeTooLarge {
		t.Fatalf("over the cap: %v", err)
	}
	sameTree(t, tree, treeOf(t, dir))

	// 300 sources with long names: more than an entry's details hold.
	var many []string
	for i := range 300 {
		p := fmt.Sprintf("sources/%s-%03d.md", strings.Repeat("long-name-", 5), i)
		mustWrite(t, dir, p, "x\n")
		many = append(many, p)
	}
	w, err = s.WriteContext(ctx, ContextInput{Content: "# Context\n", FoldedSources: many})
	if err != nil {
		t.Fatalf("300 folded sources: %v", err)
	}
	last := logOf()[strings.LastIndex(logOf(), "## ["):]
	if !strings.HasPrefix(last, w.LogEntry+"\n") || !strings.Contains(last, "300 sources folded") || !strings.Contains(last, "- "+many[0]+"\n") {
		t.Errorf("entry %q", last[:min(len(last), 300)])
	}
	shown := strings.Count(last, "\n- sources/")
	if !strings.Contains(last, fmt.Sprintf("- and %d more\n", 300-shown)) || shown == 0 || len([]rune(last)) > MaxLogDetails+400 {
		t.Errorf("%d sources listed; the rest not counted: ...%s", shown, last[max(0, len(last)-200):])
	}
}
