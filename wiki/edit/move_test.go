package edit

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

func moveWiki() map[string]string {
	return map[string]string{
		"pages/en/Old name.md": "---\ntitle: Old name\naliases: [Legacy]\n---\n# Old name\n\n## Heading one\n\nA paragraph. ^blk\n\nSee [shared](../shared.md), [[#Heading one]] and [[Old name#Heading one|myself]].\n",
		"pages/shared.md":      "# Shared\n",
		"pages/en/user.md": "---\nrelated: \"[[Old name]]\"\n---\n" +
			"[[Old name]] [[Old name|shown]] [[old NAME#Heading one]] [[Old name#^blk]] ![[Old name]] [[Old name.md]] [[en/Old name]]\n" +
			"[md](Old%20name.md#Heading%20one) [[Legacy]] `[[Old name]]` [[Target]]\n" +
			"| [[Old name\\|in a table]] |\n",
		"pages/de/x.md":         "[rel](../en/Old%20name.md) [abs](Old%20name)\n",
		"pages/other/Target.md": "# The other target\n",
		"context.md":            "---\nbuilt_at: x\n---\nThe synthesis cites [[Old name]].\n",
		"guidelines.md":         "# Guidelines\n\n## Eval Insights\n\nRead [[Old name]] first.\n\n## My Rules\n\n- Never edit [[Old name]] by hand.\n",
		"log.md":                "# Log\n\n## [2026-01-01 00:00] ingest | x\n- created [[Old name]]\n",
		"sources/notes.md":      "Raw text mentioning [[Old name]].\n",
	}
}

func TestMove(t *testing.T) {
	ctx := context.Background()
	st, dir := newStore(t, moveWiki())
	before := wikitest.TreeHashes(t, dir, nil)
	res, err := Move(ctx, st, links.Open(st), MoveInput{From: "Old name", To: "guides/Target"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OldPath != "pages/en/Old name.md" || res.Path != "pages/guides/Target.md" {
		t.Fatalf("moved %s -> %s", res.OldPath, res.Path)
	}
	wantUser := "---\nrelated: \"[[guides/Target]]\"\n---\n" +
		"[[guides/Target]] [[guides/Target|shown]] [[guides/Target#Heading one]] [[guides/Target#^blk]] ![[guides/Target]] [[guides/Target.md]] [[guides/Target]]\n" +
		"[md](guides/Target.md#Heading%20one) [[Legacy]] `[[Old name]]` [[other/Target]]\n" +
		"| [[guides/Target\\|in a table]] |\n"
	if got := read(t, dir, "pages/en/user.md"); got != wantUser {
		t.Errorf("user.md:\n%s\nwant:\n%s", got, wantUser)
	}
	if got := read(t, dir, "pages/de/x.md"); got != "[rel](../guides/Target.md) [abs](guides/Target)\n" {
		t.Errorf("de/x.md: %s", got)
	}
	moved := read(t, dir, "pages/guides/Target.md")
	if !strings.Contains(moved, "See [shared](../shared.md), [[#Heading one]] and [[Target#Heading one|myself]].") {
		t.Errorf("moved page:\n%s", moved)
	}
	if got := read(t, dir, "context.md"); !strings.Contains(got, "cites [[guides/Target]].") {
		t.Errorf("context.md: %s", got)
	}
	g := read(t, dir, "guidelines.md")
	if !strings.Contains(g, "Read [[guides/Target]] first.") || !strings.Contains(g, "Never edit [[Old name]] by hand.") {
		t.Errorf("guidelines.md:\n%s", g)
	}
	if len(res.NotRewritten) != 1 || !strings.Contains(res.NotRewritten[0], "My Rules") {
		t.Errorf("not rewritten %v", res.NotRewritten)
	}
	for _, f := range []string{"log.md", "sources/notes.md"} {
		if before[f] != wikitest.TreeHashes(t, dir, nil)[f] {
			t.Errorf("%s changed", f)
		}
	}
	if idx := read(t, dir, "index.md"); !strings.Contains(idx, "[[pages/guides/Target|Old name]]") || strings.Contains(idx, "en/Old name") {
		t.Errorf("index.md did not follow:\n%s", idx)
	}
	wantFiles := []FileLinks{{"context.md", 1}, {"guidelines.md", 1}, {"pages/de/x.md", 2}, {"pages/en/user.md", 11}, {"pages/guides/Target.md", 1}}
	if !reflect.DeepEqual(res.Rewritten, wantFiles) || res.LinksRewritten != 16 {
		t.Errorf("rewritten %v (%d links)", res.Rewritten, res.LinksRewritten)
	}
	// Every link that worked before still works, and leads to the right file.
	v, err := links.Open(st).Fresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range v.Sources() {
		for _, l := range v.Links(s) {
			if l.Problem != "" && !(s == "guidelines.md" && l.Raw == "[[Old name]]") {
				t.Errorf("%s: %s has problem %s", s, l.Raw, l.Problem)
			}
		}
	}
	if bl := v.Backlinks("pages/guides/Target.md"); len(bl) < 14 {
		t.Errorf("only %d backlinks to the moved page", len(bl))
	}
	// The old version is in the snapshots; the audit line lists every write.
	if _, err := st.Snapshots("pages/en/Old name.md"); err != nil {
		t.Error(err)
	}
}

func TestMoveAllOrNothing(t *testing.T) {
	ctx := context.Background()
	// Fail the rename of the third file written: the move must leave the
	// wiki exactly as it was.
	files := moveWiki()
	dir := t.TempDir()
	wiki.Init(dir)
	for p, c := range files {
		wikitest.WriteFile(t, dir, p, c)
	}
	renames := 0
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return now }), wiki.WithFaults(func(step, rel string) error {
		if step == "rename" {
			renames++
			if renames == 3 {
				return errors.New("disk full")
			}
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	skip := func(rel string) bool { return strings.HasPrefix(rel, ".llmwiki") }
	before := wikitest.TreeHashes(t, dir, skip)
	_, err = Move(ctx, st, links.Open(st), MoveInput{From: "pages/en/Old name.md", To: "renamed"})
	if store.CodeOf(err) != store.CodeInternal {
		t.Fatalf("err = %v", err)
	}
	if d := wikitest.DiffHashes(before, wikitest.TreeHashes(t, dir, skip)); len(d) > 0 {
		t.Errorf("a failed move changed files: %v", d)
	}
}

func TestMoveErrors(t *testing.T) {
	ctx := context.Background()
	files := moveWiki()
	files["pages/ref.md"] = "See [it][r].\n\n[r]: en/Old%20name.md\n"
	st, dir := newStore(t, files)
	skip := func(rel string) bool { return strings.HasPrefix(rel, ".llmwiki") }
	before := wikitest.TreeHashes(t, dir, skip)
	cases := []struct {
		in   MoveInput
		code store.Code
		msg  string
	}{
		{MoveInput{From: "Old name", To: "shared"}, store.CodeConflict, "already exists"},
		{MoveInput{From: "Old name", To: "SHARED"}, store.CodeConflict, "already exists"},
		{MoveInput{From: "Old name", To: "pages/en/Old name.md"}, store.CodeInvalid, "already the page's name"},
		{MoveInput{From: "Old name", To: "../outside"}, store.CodeInvalid, ""},
		{MoveInput{From: "Old name", To: "a#b/c"}, store.CodeInvalid, "cannot carry"},
		// Targets no reader could name again (found by a hostile run:
		// "~/m" made pages/~/m.md, "/tmp/x/b" made pages/tmp/x/b.md).
		{MoveInput{From: "Old name", To: "~/m"}, store.CodeInvalid, "not a page path"},
		{MoveInput{From: "Old name", To: "/tmp/hostile/canary/b"}, store.CodeInvalid, "not a page path"},
		{MoveInput{From: "Old name", To: "a//b"}, store.CodeInvalid, "not a page path"},
		{MoveInput{From: "Old name", To: "a/b/c/d/e/f/g/h/i"}, store.CodeInvalid, "folder levels"},
		{MoveInput{From: "nope", To: "x"}, store.CodeNotFound, ""},
		{MoveInput{From: "sources/notes.md", To: "x"}, store.CodeNotFound, ""},
		{MoveInput{From: "Old name", To: "x", BaseSHA256: strings.Repeat("0", 64)}, store.CodeConflict, "changed since"},
		{MoveInput{From: "Old name", To: "fresh-name"}, store.CodeInvalid, "reference-style"},
	}
	for _, c := range cases {
		_, err := Move(ctx, st, links.Open(st), c.in)
		if store.CodeOf(err) != c.code || !strings.Contains(store.PublicMessage(err), c.msg) {
			t.Errorf("Move(%+v) = %v (%s), want %s ~%q", c.in, err, store.CodeOf(err), c.code, c.msg)
		}
	}
	if d := wikitest.DiffHashes(before, wikitest.TreeHashes(t, dir, skip)); len(d) > 0 {
		t.Errorf("failed moves changed files: %v", d)
	}
}

func TestMoveManualIndex(t *testing.T) {
	files := moveWiki()
	files["schema.md"] = "---\nindex: manual\n---\n# Schema\n"
	files["index.md"] = "# Index\n\n- [[Old name]] — the old page\n- [[shared]]\n"
	st, dir := newStore(t, files)
	res, err := Move(context.Background(), st, links.Open(st), MoveInput{From: "Old name", To: "new-name"})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "index.md"); got != "# Index\n\n- [[new-name]] — the old page\n- [[shared]]\n" {
		t.Errorf("manual index.md:\n%s", got)
	}
	if res.Rewritten[0].Path != "context.md" || res.Rewritten[2].Path != "index.md" {
		t.Errorf("rewritten %v", res.Rewritten)
	}
}
