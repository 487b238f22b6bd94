package edit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

var now = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

// newStore is the shared test store (teststore.New) on the clock of now.
func newStore(t testing.TB, files map[string]string) (*wiki.Store, string) {
	t.Helper()
	return teststore.New(t, files, wiki.WithClock(func() time.Time { return now }))
}

func read(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const guide = "---\ntitle: Guide\n# a comment the person wrote\nsummary: How to\ntags: [a]\ncustom: {keep: \"me\"}   # inline comment\nupdated: 2026-01-01T00:00:00Z\n---\n# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFine print.\n\n## Use\n\nRun it.\n"

func TestEditSections(t *testing.T) {
	fm := "---\ntitle: Guide\n# a comment the person wrote\nsummary: How to\ntags: [a]\ncustom: {keep: \"me\"}   # inline comment\nupdated: \"2026-11-02T09:30:00Z\"\n---\n"
	cases := []struct {
		name, op, heading, content string
		want                       string
	}{
		{"append to a section with a subsection", OpAppend, "Setup", "Then configure it.",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFine print.\n\nThen configure it.\n\n## Use\n\nRun it.\n"},
		{"append to the last section", OpAppend, "## Use", "And stop it.\n\n",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFine print.\n\n## Use\n\nRun it.\n\nAnd stop it.\n"},
		{"append creates a missing section", OpAppend, "Troubleshooting", "Restart it.",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFine print.\n\n## Use\n\nRun it.\n\n## Troubleshooting\n\nRestart it.\n"},
		{"replace keeps the heading", OpReplace, "setup", "Download, then install.",
			"# Guide\n\nIntro.\n\n## Setup\n\nDownload, then install.\n\n## Use\n\nRun it.\n"},
		{"replace a subsection only", OpReplace, "### Details", "Finer print.",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFiner print.\n\n## Use\n\nRun it.\n"},
		{"replace with nothing empties it", OpReplace, "Details", "",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\n## Use\n\nRun it.\n"},
		{"insert before", OpInsertBefore, "Use", "## Requirements\n\nA computer.",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFine print.\n\n## Requirements\n\nA computer.\n\n## Use\n\nRun it.\n"},
		{"insert after", OpInsertAfter, "Setup", "## Configure\n\nEdit the file.",
			"# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```md\n## Not a heading\n```\n\n### Details\n\nFine print.\n\n## Configure\n\nEdit the file.\n\n## Use\n\nRun it.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, dir := newStore(t, map[string]string{"pages/guide.md": guide})
			res, err := Edit(context.Background(), st, links.Open(st), Input{Page: "guide", BaseSHA256: store.SHA256Hex([]byte(guide)), Op: c.op, Heading: c.heading, Content: c.content})
			if err != nil {
				t.Fatal(err)
			}
			got := read(t, dir, "pages/guide.md")
			if got != fm+c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, fm+c.want)
			}
			if !res.Changed || res.SHA256 != store.SHA256Hex([]byte(got)) || res.Updated != "2026-11-02T09:30:00Z" || res.Done == "" {
				t.Errorf("result %+v", res)
			}
			if !strings.HasPrefix(res.Snapshot, ".llmwiki/snapshots/pages/guide.md/") {
				t.Errorf("snapshot %q", res.Snapshot)
			}
			if snap := read(t, dir, res.Snapshot); snap != guide {
				t.Errorf("snapshot holds %q", snap)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	ctx := context.Background()
	doubled := "# T\n\n## Notes\n\na\n\n## Notes\n\nb\n"
	st, dir := newStore(t, map[string]string{"pages/guide.md": guide, "pages/twice.md": doubled, "sources/s.md": "x"})
	base := store.SHA256Hex([]byte(guide))
	cases := []struct {
		name string
		in   Input
		code store.Code
		msg  string
	}{
		{"stale base", Input{Page: "guide", BaseSHA256: strings.Repeat("a", 64), Op: OpAppend, Heading: "Use", Content: "x"}, store.CodeConflict, "changed since you read it"},
		{"no base", Input{Page: "guide", Op: OpAppend, Heading: "Use", Content: "x"}, store.CodeInvalid, "base_sha256 is required"},
		{"unknown op", Input{Page: "guide", BaseSHA256: base, Op: "rewrite"}, store.CodeInvalid, "not an edit"},
		{"missing heading", Input{Page: "guide", BaseSHA256: base, Op: OpReplace, Heading: "Nope", Content: "x"}, store.CodeNotFound, "## Setup"},
		{"heading in code is not a heading", Input{Page: "guide", BaseSHA256: base, Op: OpReplace, Heading: "Not a heading", Content: "x"}, store.CodeNotFound, "no heading"},
		{"ambiguous heading", Input{Page: "twice", BaseSHA256: store.SHA256Hex([]byte(doubled)), Op: OpAppend, Heading: "Notes", Content: "x"}, store.CodeInvalid, "appears 2 times (lines 3, 7)"},
		{"count mismatch", Input{Page: "guide", BaseSHA256: base, Op: OpFindReplace, Find: "it", Replace: "IT", Count: 1}, store.CodeConflict, "matches 2 times"},
		{"no count", Input{Page: "guide", BaseSHA256: base, Op: OpFindReplace, Find: "it", Replace: "IT"}, store.CodeInvalid, "count"},
		{"missing page", Input{Page: "nope", BaseSHA256: base, Op: OpAppend, Heading: "x", Content: "y"}, store.CodeNotFound, "not found"},
		{"not a page", Input{Page: "sources/s.md", BaseSHA256: base, Op: OpAppend, Heading: "x", Content: "y"}, store.CodeNotFound, ""},
		{"server keys", Input{Page: "guide", BaseSHA256: base, Op: OpFrontmatter, Frontmatter: map[string]any{"updated": "x"}}, store.CodeInvalid, "set by the server"},
		{"bad tag", Input{Page: "guide", BaseSHA256: base, Op: OpFrontmatter, Frontmatter: map[string]any{"tags": []any{"two words"}}}, store.CodeInvalid, "one word"},
		{"bad source", Input{Page: "guide", BaseSHA256: base, Op: OpFrontmatter, Frontmatter: map[string]any{"sources": []any{"../etc/passwd"}}}, store.CodeInvalid, "under sources/"},
		{"missing link target", Input{Page: "guide", BaseSHA256: base, Op: OpAddLinks, Links: []string{"ghost"}}, store.CodeNotFound, "\"ghost\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := read(t, dir, "pages/guide.md")
			_, err := Edit(ctx, st, links.Open(st), c.in)
			if store.CodeOf(err) != c.code || !strings.Contains(store.PublicMessage(err), c.msg) {
				t.Errorf("err = %v (%s), want %s ~%q", err, store.CodeOf(err), c.code, c.msg)
			}
			if read(t, dir, "pages/guide.md") != before {
				t.Error("the page changed")
			}
		})
	}
}

func TestEditFindReplaceAndFrontmatter(t *testing.T) {
	ctx := context.Background()
	st, dir := newStore(t, map[string]string{"pages/guide.md": guide})
	res, err := Edit(ctx, st, links.Open(st), Input{Page: "pages/guide.md", BaseSHA256: store.SHA256Hex([]byte(guide)), Op: OpFindReplace, Find: "Run it.", Replace: "Run it twice.", Count: 1,
		Frontmatter: map[string]any{"summary": "How to, better", "sources": []any{"sources/a.md"}, "tags": nil}})
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ntitle: Guide\n# a comment the person wrote\nsummary: How to, better\ncustom: {keep: \"me\"}   # inline comment\nupdated: \"2026-11-02T09:30:00Z\"\nsources:\n  - sources/a.md\n---\n" + strings.Replace(guide[strings.Index(guide, "# Guide"):], "Run it.", "Run it twice.", 1)
	if got := read(t, dir, "pages/guide.md"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if res.Replacements != 1 {
		t.Errorf("replacements %d", res.Replacements)
	}
	// An edit that changes nothing writes nothing.
	cur := read(t, dir, "pages/guide.md")
	res, err = Edit(ctx, st, links.Open(st), Input{Page: "guide", BaseSHA256: store.SHA256Hex([]byte(cur)), Op: OpFrontmatter, Frontmatter: map[string]any{"summary": "How to, better"}})
	if err != nil || res.Changed || read(t, dir, "pages/guide.md") != cur {
		t.Errorf("no-op edit: %+v, %v", res, err)
	}
	// A page without frontmatter gets one.
	wikitest.WriteFile(t, dir, "pages/plain.md", "# Plain\n\nText.\n")
	if _, err := Edit(ctx, st, links.Open(st), Input{Page: "plain", BaseSHA256: store.SHA256Hex([]byte("# Plain\n\nText.\n")), Op: OpAppend, Heading: "More", Content: "Words."}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "pages/plain.md"); got != "---\nupdated: \"2026-11-02T09:30:00Z\"\n---\n# Plain\n\nText.\n\n## More\n\nWords.\n" {
		t.Errorf("plain page:\n%s", got)
	}
}

func TestEditAddLinks(t *testing.T) {
	ctx := context.Background()
	page := "# Home\n\nText.\n\n## Related\n\n- [[guide]]\n\n## Footer\n\nBye.\n"
	st, dir := newStore(t, map[string]string{
		"pages/home.md":         page,
		"pages/guide.md":        "# Guide\n",
		"pages/en/Deep Page.md": "---\naliases: [Deep]\n---\n# Deep\n",
		"pages/bare.md":         "# Bare\n",
	})
	res, err := Edit(ctx, st, links.Open(st), Input{Page: "home", BaseSHA256: store.SHA256Hex([]byte(page)), Op: OpAddLinks, Links: []string{"Guide", "[[Deep Page]]", "deep|the deep one", "bare"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nupdated: \"2026-11-02T09:30:00Z\"\n---\n# Home\n\nText.\n\n## Related\n\n- [[guide]]\n- [[Deep Page]]\n- [[bare]]\n\n## Footer\n\nBye.\n"
	if got := read(t, dir, "pages/home.md"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Join(res.LinksAdded, " ") != "[[Deep Page]] [[bare]]" {
		t.Errorf("added %v", res.LinksAdded)
	}
	// A page with no Related section gets one at the end.
	res, err = Edit(ctx, st, links.Open(st), Input{Page: "bare", BaseSHA256: store.SHA256Hex([]byte("# Bare\n")), Op: OpAddLinks, Links: []string{"home|Start"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "pages/bare.md"); !strings.HasSuffix(got, "# Bare\n\n## Related\n\n- [[home|Start]]\n") {
		t.Errorf("bare:\n%s", got)
	}
	if _, err := Edit(ctx, st, links.Open(st), Input{Page: "guide", BaseSHA256: store.SHA256Hex([]byte("# Guide\n")), Op: OpAddLinks, Links: []string{"guide"}}); store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("self link: %v", err)
	}
}

func TestEditAudited(t *testing.T) {
	st, dir := newStore(t, map[string]string{"pages/guide.md": guide})
	if _, err := Edit(context.Background(), st, links.Open(st), Input{Page: "guide", BaseSHA256: store.SHA256Hex([]byte(guide)), Op: OpAppend, Heading: "Use", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".llmwiki", "audit", "*.jsonl"))
	var all string
	for _, f := range files {
		all += read(t, dir, strings.TrimPrefix(f, dir+"/"))
	}
	if !strings.Contains(all, `"tool":"edit_page"`) || !strings.Contains(all, `"path":"pages/guide.md"`) {
		t.Errorf("audit log lacks the edit:\n%s", all)
	}
}
