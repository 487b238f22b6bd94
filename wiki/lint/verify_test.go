package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

const ipcPage = "---\ntitle: Electron IPC\nsources: [sources/ipc.md]\n---\n# Electron IPC\n\nThe renderer **must never** call Node APIs directly;\nit sends messages to the main process over `ipcRenderer.invoke`.\n\nContext isolation is “on” by default since Electron 12 — keep it on.\n"

const ipcSource = "# IPC notes\n\nContext isolation is off by default in every Electron release.\n"

func TestVerify(t *testing.T) {
	st, dir := newStore(t, map[string]string{"pages/ipc.md": ipcPage, "sources/ipc.md": ipcSource, "sources/blob.bin": "\x00\x01\x02binary", "sources/latin1.txt": "La cr\xe8me br\xfbl\xe9e se sert froide.\n"})
	outside := filepath.Join(filepath.Dir(dir), "outside.md")
	os.WriteFile(outside, []byte("Context isolation is on by default.\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "pages", "link.md"))
	v := NewVerifier(st)
	cases := []struct {
		name, file, quote string
		ok                bool
		line              int
		reason            string
	}{
		{"verbatim", "pages/ipc.md", "sends messages to the main process", true, 8, ""},
		{"line wrap, emphasis, case", "pages/ipc.md", "The renderer MUST NEVER call Node APIs directly; it sends messages", true, 7, ""},
		{"curly quotes and dash", "pages/ipc.md", `Context isolation is "on" by default since Electron 12 - keep it on.`, true, 10, ""},
		{"by slug", "ipc", "sends messages to the main process", true, 8, ""},
		{"paraphrase fails", "pages/ipc.md", "the renderer is not allowed to use Node APIs", false, 0, "not in pages/ipc.md"},
		{"7 characters", "pages/ipc.md", "renderr", false, 0, "shorter than 8"},
		{"exactly 8", "pages/ipc.md", "renderer", true, 7, ""},
		{"301 characters", "pages/ipc.md", strings.Repeat("a", 301), false, 0, "longer than 300"},
		{"only whitespace", "pages/ipc.md", " \n\t  \u00a0 ", false, 0, "empty or only whitespace"},
		{"missing file", "pages/nope.md", "sends messages to the main process", false, 0, "does not exist"},
		{"no file", "", "sends messages to the main process", false, 0, "names no file"},
		{"dot-dot", "../outside.md", "Context isolation is on", false, 0, "leaves the wiki root"},
		{"absolute", "/etc/passwd", "root:x:0:0:root", false, 0, "absolute"},
		{"symlink out", "pages/link.md", "Context isolation is on", false, 0, "outside the wiki root"},
		{"server state", ".llmwiki/lock", "anything at all", false, 0, "server's own state"},
		{"binary", "sources/blob.bin", "binary stuff here", false, 0, "binary"},
		{"Latin-1, as read_page decodes it", "sources/latin1.txt", "crème brûlée se sert", true, 1, ""},
		{"folder", "pages", "some words here", false, 0, "folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := v.Verify(Quote{Path: c.file, Quote: c.quote})
			if ev.Verified != c.ok || ev.Line != c.line || !strings.Contains(ev.Reason, c.reason) {
				t.Errorf("Verify(%q, %q) = %+v; want verified=%v line=%d reason~%q", c.file, c.quote, ev, c.ok, c.line, c.reason)
			}
			if strings.Contains(ev.Reason, dir) || strings.Contains(ev.Reason, "/tmp") {
				t.Errorf("reason shows a host path: %q", ev.Reason)
			}
		})
	}
}

func TestCheckProposal(t *testing.T) {
	st, _ := newStore(t, map[string]string{"pages/ipc.md": ipcPage, "sources/ipc.md": ipcSource})
	v := NewVerifier(st)
	q1 := Quote{"pages/ipc.md", "Context isolation is “on” by default since Electron 12"}
	q2 := Quote{"sources/ipc.md", "Context isolation is off by default in every Electron release"}
	made := Quote{"sources/ipc.md", "Context isolation was removed in Electron 30"}
	cases := []struct {
		name string
		p    Proposal
		ok   bool
		note string
	}{
		{"contradiction from two files", Proposal{Kind: KindContradiction, Message: "page and source disagree on the default", Evidence: []Quote{q1, q2}}, true, ""},
		{"contradiction with one quote", Proposal{Kind: KindContradiction, Message: "m", Evidence: []Quote{q1}}, false, "two different places"},
		{"contradiction quoting one place twice", Proposal{Kind: KindContradiction, Message: "m", Evidence: []Quote{q1, {"pages/ipc.md", "is “on” by default since Electron"}}}, false, "two different places"},
		{"contradiction with a made-up quote", Proposal{Kind: KindContradiction, Message: "m", Evidence: []Quote{q1, made}}, false, "1 of 2 quotes were not found"},
		{"stale claim", Proposal{Kind: KindStaleClaim, Path: "ipc", Message: "the default changed", Evidence: []Quote{q1}}, true, ""},
		{"unsupported claim, paraphrased", Proposal{Kind: KindUnsupportedClaim, Message: "m", Evidence: []Quote{{"pages/ipc.md", "renderers may never touch Node"}}}, false, "not found"},
		{"gap", Proposal{Kind: KindGap, Message: "no page on preload scripts", Evidence: []Quote{{"pages/ipc.md", "ipcRenderer.invoke"}}}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := v.Check(c.p)
			if err != nil {
				t.Fatal(err)
			}
			if f.Verified != c.ok || !strings.Contains(f.Note, c.note) {
				t.Errorf("verified=%v note=%q; want %v ~%q (%+v)", f.Verified, f.Note, c.ok, c.note, f.Evidence)
			}
			if f.ID == "" || f.Fingerprint == "" || f.Severity == "" || f.Path == "" {
				t.Errorf("incomplete finding %+v", f)
			}
		})
	}
	f, _ := v.Check(Proposal{Kind: KindStaleClaim, Path: "ipc", Message: "x", Evidence: []Quote{q1}})
	if f.Path != "pages/ipc.md" || f.Line != 10 {
		t.Errorf("file/line = %s:%d", f.Path, f.Line)
	}

	// Malformed proposals are errors.
	many := make([]Quote, 1000)
	for i := range many {
		many[i] = Quote{Path: fmt.Sprintf("pages/p%03d.md", i), Quote: "some quoted words"}
	}
	names := map[string]bool{}
	for _, q := range many {
		names[q.Path] = true
	}
	if len(names) != 1000 {
		t.Fatalf("%d distinct file names, want 1000", len(names))
	}
	bad := []struct {
		p    Proposal
		code store.Code
	}{
		{Proposal{Kind: "orphan_page", Message: "m", Evidence: []Quote{q1}}, store.CodeInvalid},
		{Proposal{Kind: "rumour", Message: "m", Evidence: []Quote{q1}}, store.CodeInvalid},
		{Proposal{Kind: KindGap, Message: "  ", Evidence: []Quote{q1}}, store.CodeInvalid},
		{Proposal{Kind: KindGap, Message: "m"}, store.CodeInvalid},
		{Proposal{Kind: KindGap, Message: "m", Evidence: many}, store.CodeTooLarge},
		{Proposal{Kind: KindGap, Message: strings.Repeat("m", MaxMessage+1), Evidence: []Quote{q1}}, store.CodeTooLarge},
	}
	for _, b := range bad {
		if _, err := v.Check(b.p); store.CodeOf(err) != b.code {
			t.Errorf("Check(kind %q, %d quotes) err = %v, want %s", b.p.Kind, len(b.p.Evidence), err, b.code)
		}
	}
	// Submitted, the finding naming 1,000 files is refused whole: the
	// message says how many it names, and nothing is stored.
	_, err := Submit(context.Background(), st, "agent", "test", []Proposal{{Kind: KindGap, Message: "m", Evidence: many}})
	if store.CodeOf(err) != store.CodeTooLarge || !strings.Contains(store.PublicMessage(err), "names 1000") {
		t.Errorf("Submit with 1,000 files: %v", err)
	}
	if _, ok, _ := st.ReadState(agentFile); ok {
		t.Error("a refused submission stored findings")
	}
}

func TestSubmitAndDismiss(t *testing.T) {
	ctx := context.Background()
	st, dir := newStore(t, map[string]string{"pages/ipc.md": ipcPage, "sources/ipc.md": ipcSource})
	q1 := Quote{"pages/ipc.md", "Context isolation is “on” by default since Electron 12"}
	q2 := Quote{"sources/ipc.md", "Context isolation is off by default in every Electron release"}
	fs, err := Submit(ctx, st, "agent", "test", []Proposal{
		{Kind: KindContradiction, Message: "the page and its source disagree", Evidence: []Quote{q1, q2}},
		{Kind: KindUnsupportedClaim, Message: "invented", Evidence: []Quote{{"pages/ipc.md", "Electron 12 removed the remote module"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !fs[0].Verified || fs[1].Verified {
		t.Fatalf("verified = %v, %v", fs[0].Verified, fs[1].Verified)
	}
	// A submission with one malformed finding stores nothing.
	if _, err := Submit(ctx, st, "agent", "test", []Proposal{{Kind: KindGap, Message: "ok", Evidence: []Quote{q1}}, {Kind: KindGap, Message: "bad"}}); store.CodeOf(err) != store.CodeInvalid || !strings.Contains(store.PublicMessage(err), "finding 2") {
		t.Errorf("err = %v", err)
	}
	only := Options{Categories: AgentCategories()}
	rep, err := Run(ctx, st, links.Open(st), only)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 2 || rep.Unverified != 1 {
		t.Fatalf("findings %+v", rep.Findings)
	}
	// Dismiss the contradiction: it is no longer reported...
	if _, err := Dismiss(ctx, st, links.Open(st), []string{fs[0].ID}, "the source is outdated", "person"); err != nil {
		t.Fatal(err)
	}
	rep, _ = Run(ctx, st, links.Open(st), only)
	if len(rep.Findings) != 1 || rep.Dismissed != 1 || rep.Findings[0].ID != fs[1].ID {
		t.Fatalf("after dismiss: %+v (dismissed %d)", rep.Findings, rep.Dismissed)
	}
	rep, _ = Run(ctx, st, links.Open(st), Options{Categories: AgentCategories(), IncludeDismissed: true})
	if len(rep.Findings) != 2 {
		t.Fatalf("include dismissed: %d", len(rep.Findings))
	}
	// ...until its evidence changes: the page no longer says it.
	wikitest.WriteFile(t, dir, "pages/ipc.md", strings.Replace(ipcPage, "since Electron 12", "since Electron 20", 1))
	rep, _ = Run(ctx, st, links.Open(st), only)
	var got *Finding
	for i := range rep.Findings {
		if rep.Findings[i].ID == fs[0].ID {
			got = &rep.Findings[i]
		}
	}
	if got == nil || got.Verified || rep.Dismissed != 0 {
		t.Fatalf("changed evidence: finding %+v, dismissed %d", got, rep.Dismissed)
	}
	if _, err := Dismiss(ctx, st, links.Open(st), []string{"nonexistent"}, "", ""); store.CodeOf(err) != store.CodeNotFound {
		t.Errorf("unknown id: %v", err)
	}
	if n, err := Undismiss(ctx, st, []string{fs[0].ID}); err != nil || n != 1 {
		t.Errorf("undismiss = %d, %v", n, err)
	}
	if _, err := Submit(ctx, st, "agent", "t", make([]Proposal, MaxProposals+1)); store.CodeOf(err) != store.CodeTooLarge {
		t.Errorf("too many proposals: %v", err)
	}
}
