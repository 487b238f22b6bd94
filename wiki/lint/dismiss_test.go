package lint

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestRunLintDisabled: a category schema.md turns off is not run, the
// summary lists it, and naming it in Options still runs it.
func TestRunLintDisabled(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	files := map[string]string{
		"pages/home.md":   page("Home", "Start", []string{"sources/a.md"}, fresh, "[[guide]]\n"),
		"pages/guide.md":  page("Guide", "How to", []string{"sources/a.md"}, fresh, "[[home]]\n"),
		"pages/orphan.md": page("Orphan", "Nobody links here", []string{"sources/a.md"}, fresh, "Lonely.\n"),
		"pages/alone.md":  page("Alone", "Nobody links here either", []string{"sources/a.md"}, fresh, "Also lonely.\n"),
		"sources/a.md":    "# A\n",
	}
	// Without the setting, the two orphans are reported.
	st, _ := newStore(t, files)
	rep, err := Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := kindsOf(rep)[KindOrphanPage]; !reflect.DeepEqual(got, []string{"pages/alone.md:0", "pages/orphan.md:0"}) || len(rep.Disabled) != 0 {
		t.Fatalf("without lint_disabled: orphans %v, disabled %v", got, rep.Disabled)
	}

	files["schema.md"] = "---\nlint_disabled: [orphan_page, merge_candidate]\n---\n# Schema\n"
	st, _ = newStore(t, files)
	rep, err = Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Kind == KindOrphanPage {
			t.Errorf("orphan_page is disabled but reported: %+v", f)
		}
	}
	if rep.Counts[KindOrphanPage] != 0 {
		t.Errorf("counts %v", rep.Counts)
	}
	if !reflect.DeepEqual(rep.Disabled, []string{KindMergeCandidate, KindOrphanPage}) || len(rep.Problems) != 0 {
		t.Errorf("summary disabled %v, problems %v", rep.Disabled, rep.Problems)
	}
	// Other categories still run: index.md lists none of these pages.
	if len(kindsOf(rep)[KindIndexDrift]) != 1 {
		t.Errorf("index_drift not reported with orphan_page disabled: %v", kindsOf(rep))
	}
	// Asking for the category by name runs it anyway.
	rep, err = Run(ctx, st, links.Open(st), Options{Categories: []string{KindOrphanPage}})
	if err != nil {
		t.Fatal(err)
	}
	if got := kindsOf(rep)[KindOrphanPage]; len(got) != 2 {
		t.Errorf("orphan_page named explicitly: %v", got)
	}
}

// TestDismissedLinkReappears: a dismissed dangling link stays hidden while
// nothing about it changes (an edit elsewhere in the page included), and is
// reported again once the link's text changes or the same link is added a
// second time. A missing heading, whose evidence includes the page the link
// resolves to, comes back under the same id when that page changes.
func TestDismissedLinkReappears(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	body := "# Home\n\nSee [[nowhere]] and [[guide#Install]].\n"
	st, dir := newStore(t, map[string]string{
		"pages/home.md":  page("Home", "Start", []string{"sources/a.md"}, fresh, body),
		"pages/guide.md": page("Guide", "How to", []string{"sources/a.md"}, fresh, "# Guide\n\n## Setup\n\n[[home]]\n"),
		"pages/other.md": page("Other", "Another", []string{"sources/a.md"}, fresh, "[[home]] [[guide]]\n"),
		"sources/a.md":   "# A\n",
	})
	only := Options{Categories: []string{KindDanglingLink, KindMissingHeading}}
	find := func(rep *Report, kind string) []Finding {
		var out []Finding
		for _, f := range rep.Findings {
			if f.Kind == kind {
				out = append(out, f)
			}
		}
		return out
	}
	rep, err := Run(ctx, st, links.Open(st), only)
	if err != nil {
		t.Fatal(err)
	}
	dl, mh := find(rep, KindDanglingLink), find(rep, KindMissingHeading)
	if len(dl) != 1 || dl[0].Target != "nowhere" || dl[0].Line != 9 || len(mh) != 1 {
		t.Fatalf("findings %+v", rep.Findings)
	}
	if _, err := Dismiss(ctx, st, links.Open(st), []string{dl[0].ID, mh[0].ID}, "planned pages", "person"); err != nil {
		t.Fatal(err)
	}
	rerun := func(what string, wantDangling, wantHeading, wantDismissed int) *Report {
		t.Helper()
		rep, err := Run(ctx, st, links.Open(st), only)
		if err != nil {
			t.Fatal(err)
		}
		if d, h := len(find(rep, KindDanglingLink)), len(find(rep, KindMissingHeading)); d != wantDangling || h != wantHeading || rep.Dismissed != wantDismissed {
			t.Errorf("%s: %d dangling, %d missing heading, %d dismissed; want %d, %d, %d (%+v)", what, d, h, rep.Dismissed, wantDangling, wantHeading, wantDismissed, rep.Findings)
		}
		return rep
	}
	// Nothing changed: both stay hidden, run after run.
	rerun("unchanged", 0, 0, 2)
	rerun("unchanged, second run", 0, 0, 2)
	// An edit elsewhere in the page moves the link down a line; the link
	// itself (its text, its target, its place among the page's links) is
	// the same, so the dismissal holds.
	wikitest.WriteFile(t, dir, "pages/home.md", page("Home", "Start", []string{"sources/a.md"}, fresh, "# Home\n\nA new first paragraph.\n\nSee [[nowhere]] and [[guide#Install]].\n"))
	rerun("edit above the link", 0, 0, 2)
	// The link's text changes: reported again.
	wikitest.WriteFile(t, dir, "pages/home.md", page("Home", "Start", []string{"sources/a.md"}, fresh, "# Home\n\nSee [[nowhere|the plan]] and [[guide#Install]].\n"))
	rep = rerun("link text changed", 1, 0, 1)
	if f := find(rep, KindDanglingLink); len(f) == 1 && (f[0].Target != "nowhere" || f[0].Line != 9 || f[0].Dismissed || f[0].ID == dl[0].ID) {
		t.Errorf("changed link reported as %+v", f[0])
	}
	// Back to the dismissed text: hidden again, and the same link a second
	// time is a new finding.
	wikitest.WriteFile(t, dir, "pages/home.md", page("Home", "Start", []string{"sources/a.md"}, fresh, body))
	rerun("text restored", 0, 0, 2)
	wikitest.WriteFile(t, dir, "pages/home.md", page("Home", "Start", []string{"sources/a.md"}, fresh, body+"Again [[nowhere]].\n"))
	rep = rerun("second occurrence", 1, 0, 2)
	if f := find(rep, KindDanglingLink); len(f) == 1 && f[0].Line != 10 {
		t.Errorf("second occurrence reported at line %d, want 10", f[0].Line)
	}
	wikitest.WriteFile(t, dir, "pages/home.md", page("Home", "Start", []string{"sources/a.md"}, fresh, body))
	// The missing heading's evidence includes the page the link leads to:
	// when [[guide]] comes to mean another page (guide.md renamed, another
	// page takes "Guide" as an alias), the same finding comes back.
	wikitest.WriteFile(t, dir, "pages/manual.md", "---\ntitle: Manual\nsummary: s\nsources: [sources/a.md]\naliases: [Guide]\nupdated: "+fresh+"\n---\n# Manual\n\n[[home]]\n")
	removeFile(t, dir, "pages/guide.md")
	rep = rerun("heading target changed", 0, 1, 1)
	if f := find(rep, KindMissingHeading); len(f) == 1 && (f[0].ID != mh[0].ID || f[0].Fingerprint == mh[0].Fingerprint || !strings.Contains(f[0].Message, "manual")) {
		t.Errorf("missing heading after the target changed: %+v (was %+v)", f[0], mh[0])
	}
}

func removeFile(t testing.TB, dir, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

// TestRunWritesNothingDismissNeedsNoRun: Run writes no lint state
// (lint_findings is a read-only tool), and a finding is dismissed by the id
// lint shows with no run's findings kept on disk; an id no finding has now
// is refused and nothing is recorded.
func TestRunWritesNothingDismissNeedsNoRun(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	st, dir := newStore(t, map[string]string{
		"pages/home.md":  page("Home", "Start", []string{"sources/a.md"}, fresh, "# Home\n\nSee [[nowhere]] and [[guide]].\n"),
		"pages/guide.md": page("Guide", "How to", []string{"sources/a.md"}, fresh, "[[home]]\n"),
		"sources/a.md":   "# A\n",
	})
	rep, err := Run(ctx, st, links.Open(st), Options{Categories: []string{KindDanglingLink}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Target != "nowhere" {
		t.Fatalf("findings %+v", rep.Findings)
	}
	id := rep.Findings[0].ID
	if _, err := os.Stat(filepath.Join(dir, StateDir)); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(filepath.Join(dir, StateDir))
		for _, e := range entries {
			t.Errorf("Run wrote %s/%s", StateDir, e.Name())
		}
	}
	if _, err := Dismiss(ctx, st, links.Open(st), []string{"000000000000"}, "", "person"); store.CodeOf(err) != store.CodeNotFound {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, dismissedFile)); !os.IsNotExist(err) {
		t.Errorf("a refused dismissal wrote %s (%v)", dismissedFile, err)
	}
	fs, err := Dismiss(ctx, st, links.Open(st), []string{id}, "planned page", "person")
	if err != nil || len(fs) != 1 || fs[0].ID != id || fs[0].Kind != KindDanglingLink {
		t.Fatalf("dismiss without an earlier run: %+v, %v", fs, err)
	}
	rep, err = Run(ctx, st, links.Open(st), Options{Categories: []string{KindDanglingLink}})
	if err != nil || len(rep.Findings) != 0 || rep.Dismissed != 1 {
		t.Errorf("after dismiss: %+v, %v", rep, err)
	}
}
