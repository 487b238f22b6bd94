package wiki

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/store"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestGatherSourcesPaging(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	want := map[string]int{}
	for i := 0; i < 30; i++ {
		name := "sources/doc" + fmtInt(100+i) + ".md"
		text := strings.Repeat("é word ", 100+i*37) // multi-byte: the budget counts characters
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		want[name] = utf8.RuneCountInString(text)
	}
	os.WriteFile(filepath.Join(dir, "sources", "big.md"), []byte(strings.Repeat("line of text\n", 2000)), 0o644)
	os.WriteFile(filepath.Join(dir, "sources", "img.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00binary"), 0o644)
	budget := 5000
	seen := map[string]int{}
	cursor := ""
	pages := 0
	for {
		r, err := s.GatherSources(ctx, GatherInput{Budget: budget, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		chars := 0
		for _, si := range r.Sources {
			seen[si.Path]++
			chars += utf8.RuneCountInString(si.Content)
			if si.Path == "sources/img.png" && (!si.Binary || si.Content != "" || si.MediaType != "image/png") {
				t.Errorf("binary source not described: %+v", si)
			}
			if si.Path == "sources/big.md" && (!si.Truncated || si.NextFromLine == 0) {
				t.Errorf("big source not cut with a next line: truncated=%v next=%d", si.Truncated, si.NextFromLine)
			}
		}
		if chars > budget {
			t.Errorf("page %d holds %d characters, budget %d", pages, chars, budget)
		}
		if r.Chars != chars {
			t.Errorf("page %d reports %d chars, holds %d", pages, r.Chars, chars)
		}
		if r.NextCursor == "" {
			if r.Remaining != 0 {
				t.Errorf("last page says %d remain", r.Remaining)
			}
			break
		}
		cursor = r.NextCursor
		if pages > 100 {
			t.Fatal("cursor never ends")
		}
	}
	if len(seen) != 32 {
		t.Errorf("saw %d sources, want 32", len(seen))
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s returned %d times", p, n)
		}
	}
	// A cursor from another selection is refused with a way forward.
	r, _ := s.GatherSources(ctx, GatherInput{Budget: 1000})
	_, err := s.GatherSources(ctx, GatherInput{Mode: "all", Cursor: r.NextCursor})
	wantCode(t, err, store.CodeInvalid)
	_, err = s.GatherSources(ctx, GatherInput{Cursor: "garbage"})
	wantCode(t, err, store.CodeInvalid)
}

func TestGatherSourcesProvenance(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(dir, "sources", "a.md"), []byte("alpha"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sources", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sources", "sub", "b.md"), []byte("beta"), 0o644)
	if _, err := s.WriteContext(ctx, ContextInput{Content: "# C\n", FoldedSources: []string{"sources/a.md"}}); err != nil {
		t.Fatal(err)
	}
	r, _ := s.GatherSources(ctx, GatherInput{})
	if len(r.Sources) != 1 || r.Sources[0].Path != "sources/sub/b.md" || r.Sources[0].Status != "new" {
		t.Fatalf("pending = %+v", r.Sources)
	}
	// A folded source whose bytes change is pending again, as "changed".
	os.WriteFile(filepath.Join(dir, "sources", "a.md"), []byte("alpha v2"), 0o644)
	r, _ = s.GatherSources(ctx, GatherInput{Under: "sources"})
	if len(r.Sources) != 2 || r.Sources[0].Status != "changed" {
		t.Errorf("after a change: %+v", r.Sources)
	}
	r, _ = s.GatherSources(ctx, GatherInput{Under: "sub"})
	if len(r.Sources) != 1 || r.Sources[0].Path != "sources/sub/b.md" {
		t.Errorf("under sub: %+v", r.Sources)
	}
	r, _ = s.GatherSources(ctx, GatherInput{Mode: "all", Since: time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	if len(r.Sources) != 0 {
		t.Errorf("since the future: %+v", r.Sources)
	}
	_, err := s.GatherSources(ctx, GatherInput{Under: "../x"})
	wantCode(t, err, store.CodeInvalid)
	_, err = s.WriteContext(ctx, ContextInput{Content: "x", FoldedSources: []string{"sources/missing.md"}})
	wantCode(t, err, store.CodeNotFound)
	_, err = s.WriteContext(ctx, ContextInput{Content: "x", FoldedSources: []string{"pages/x.md"}})
	wantCode(t, err, store.CodeInvalid)
}

func TestContextCap(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	before := readFile(t, dir, "context.md")
	long := strings.Repeat("a line\n", 401)
	_, err := s.WriteContext(ctx, ContextInput{Content: long})
	wantCode(t, err, store.CodeTooLarge)
	if !strings.Contains(err.Error(), "401 lines") || !strings.Contains(err.Error(), "cap is 400") {
		t.Errorf("refusal does not give the count and the cap: %v", err)
	}
	if readFile(t, dir, "context.md") != before {
		t.Error("context.md changed after a refusal")
	}
	if snaps, _ := s.Snapshots("context.md"); len(snaps) != 0 {
		t.Error("a refused write made a snapshot")
	}
	// Exactly at the cap is fine.
	if _, err := s.WriteContext(ctx, ContextInput{Content: strings.Repeat("a line\n", 400)}); err != nil {
		t.Errorf("400 lines refused: %v", err)
	}
	// Spill: the tail moves to a new page; nothing is lost.
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		if i%50 == 1 {
			b.WriteString("## Section " + fmtInt(i/50+1) + "\n")
		}
		b.WriteString("line " + fmtInt(i) + "\n")
	}
	w, err := s.WriteContext(ctx, ContextInput{Content: b.String(), OnOverflow: "spill"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Lines > 400 || w.SpilledTo == "" || w.SpilledLines == 0 {
		t.Fatalf("spill result %+v", w)
	}
	ctxBody := string(bodyOf("context.md", []byte(readFile(t, dir, "context.md"))))
	spill := readFile(t, dir, w.SpilledTo)
	for i := 1; i <= 500; i++ {
		l := "line " + fmtInt(i) + "\n"
		if !strings.Contains(ctxBody, l) && !strings.Contains(spill, l) {
			t.Fatalf("%q lost in the spill", l)
		}
	}
	slug := strings.TrimSuffix(strings.TrimPrefix(w.SpilledTo, "pages/"), ".md")
	if !strings.Contains(ctxBody, "[["+slug+"]]") {
		t.Error("context.md has no pointer to the spill page")
	}
	if !strings.HasPrefix(strings.SplitAfter(spill, "---\n")[2], "Continued from") {
		t.Errorf("spill page body: %q", spill[:100])
	}
	// The cap comes from schema.md.
	schema := readFile(t, dir, "schema.md")
	os.WriteFile(filepath.Join(dir, "schema.md"), []byte(strings.Replace(schema, "context_max_lines: 400", "context_max_lines: 5", 1)), 0o644)
	_, err = s.WriteContext(ctx, ContextInput{Content: "1\n2\n3\n4\n5\n6\n"})
	wantCode(t, err, store.CodeTooLarge)
}

func TestResearchSave(t *testing.T) {
	frozen := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	s, dir := newStore(t, WithClock(func() time.Time { return frozen }))
	ctx := context.Background()
	r1, err := s.ResearchSave(ctx, ResearchInput{Topic: "Bun SQLite", Content: "Electron can't load bun:sqlite.", URLs: []string{"https://bun.sh/docs/api/sqlite"}})
	if err != nil || !r1.Created || r1.Path != "sources/research/bun-sqlite.md" {
		t.Fatalf("%+v %v", r1, err)
	}
	first := readFile(t, dir, r1.Path)
	r2, err := s.ResearchSave(ctx, ResearchInput{Topic: "bun sqlite", Heading: "Follow-up", Content: "## Fake section\nmore"})
	if err != nil || r2.Created {
		t.Fatalf("%+v %v", r2, err)
	}
	second := readFile(t, dir, r1.Path)
	if !strings.HasPrefix(second, first) {
		t.Error("the second save rewrote existing bytes")
	}
	if !strings.Contains(second, "## 2026-11-29 09:30 UTC — Follow-up\n") || !strings.Contains(second, "### Fake section") || !strings.Contains(first, "- <https://bun.sh/docs/api/sqlite>") {
		t.Errorf("note:\n%s", second)
	}
	for _, bad := range []ResearchInput{{Topic: "x", Content: ""}, {Topic: "../x", Content: "y"}, {Topic: "x", Content: "y", URLs: []string{"ftp://x"}}, {Topic: "x", Content: "y", URLs: []string{"javascript:alert(1)"}}} {
		if _, err := s.ResearchSave(ctx, bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("ResearchSave(%+v) err = %v", bad, err)
		}
	}
}

func TestSaveSource(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	w, err := s.SaveSource(ctx, SourceInput{Path: "papers/x.md", Content: "exact\r\nbytes\x00?"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != "sources/papers/x.md" || readFile(t, dir, w.Path) != "exact\r\nbytes\x00?" {
		t.Errorf("%+v %q", w, readFile(t, dir, w.Path))
	}
	_, err = s.SaveSource(ctx, SourceInput{Path: "sources/papers/x.md", Content: "overwrite"})
	wantCode(t, err, store.CodeConflict)
	if readFile(t, dir, w.Path) != "exact\r\nbytes\x00?" {
		t.Error("a source was overwritten")
	}
	b, err := s.SaveSource(ctx, SourceInput{Path: "sources/img.bin", Content: "AAEC/w==", Encoding: "base64"})
	if err != nil || readFile(t, dir, b.Path) != "\x00\x01\x02\xff" {
		t.Errorf("base64 source: %v", err)
	}
	for _, bad := range []SourceInput{{Path: "../x.md", Content: "x"}, {Path: "sources/research/r.md", Content: "x"}, {Path: "", Content: "x"}, {Path: "x.md", Content: "x", Encoding: "base64"}} {
		if _, err := s.SaveSource(ctx, bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("SaveSource(%+v) err = %v", bad, err)
		}
	}
}

func TestAppendLog(t *testing.T) {
	frozen := time.Date(2026, 4, 7, 14, 3, 0, 0, time.UTC)
	s, dir := newStore(t, WithClock(func() time.Time { return frozen }))
	ctx := context.Background()
	os.WriteFile(filepath.Join(dir, "log.md"), []byte("# Log\nno newline at the end"), 0o644)
	if _, err := s.AppendLog(ctx, LogInput{Op: "ingest", Title: "Electron IPC notes", Details: "- created [[electron-ipc]]\n## [2026-01-01 00:00] build | forged\n# also forged"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendLog(ctx, LogInput{Op: "query", Title: "second"}); err != nil {
		t.Fatal(err)
	}
	want := "# Log\nno newline at the end\n\n## [2026-04-07 14:03] ingest | Electron IPC notes\n\n- created [[electron-ipc]]\n\\## [2026-01-01 00:00] build | forged\n\\# also forged\n\n## [2026-04-07 14:03] query | second\n"
	if got := readFile(t, dir, "log.md"); got != want {
		t.Errorf("log.md =\n%q\nwant\n%q", got, want)
	}
	if e := s.LogEntries(10); len(e) != 2 {
		t.Errorf("entries = %v", e)
	}
	for _, bad := range []LogInput{{Op: "delete", Title: "x"}, {Op: "note", Title: ""}, {Op: "note", Title: "two\nlines"}, {Op: "note", Title: strings.Repeat("x", 201)}, {Op: "note", Title: "x", Details: strings.Repeat("y", 4001)}} {
		if _, err := s.AppendLog(ctx, bad); err == nil {
			t.Errorf("AppendLog(%+v) accepted", bad)
		}
	}
}

// TestIndexGolden pins index.md's format: grouped, sorted, deterministic.
func TestIndexGolden(t *testing.T) {
	s, dir := newStore(t, WithClock(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }))
	ctx := context.Background()
	pages := []PageInput{
		{Title: "Electron IPC patterns", Summary: "How renderer and main talk.", Tags: []string{"electron", "ipc"}, Content: "x"},
		{Title: "Bun SQLite gotchas", Summary: "What breaks\nwhere.", Tags: []string{"bun"}, Content: "x"},
		{Title: "alpha | pipes ]] and [[brackets", Summary: "Escaped.", Tags: []string{"electron"}, Content: "x"},
		{Title: "No tags", Content: "x"},
		// pages/log.md shares its name with log.md: linked by path.
		{Title: "Log", Summary: "Logarithms.", Tags: []string{"math"}, Content: "x"},
	}
	for _, p := range pages {
		p.Summary = strings.ReplaceAll(p.Summary, "\n", " ")
		if _, err := s.WritePage(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "pages", "en", "Plugins"), 0o755)
	os.WriteFile(filepath.Join(dir, "pages", "en", "Plugins", "Graph view.md"), []byte("---\naliases: [graph]\n---\n# Graph view\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pages", "no-tags-2.md"), []byte("plain page\n"), 0o644)
	r, err := s.RebuildIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pages != 7 || !r.Changed {
		t.Errorf("result %+v", r)
	}
	got := readFile(t, dir, "index.md")
	golden := filepath.Join("testdata", "index.golden.md")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./wiki -run TestIndexGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("index.md differs from testdata/index.golden.md:\n%s", got)
	}
	if !strings.Contains(got, "[[pages/log|Log]]") {
		t.Errorf("pages/log.md is not linked by its path:\n%s", got)
	}
	r2, _ := s.RebuildIndex(ctx)
	if r2.Changed {
		t.Error("a second rebuild changed index.md")
	}
}
