package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

const newSection = "## Eval Insights (auto-generated 2026-11-22)\n\n### Wiki Gaps\n\n- publish pricing\n"

// TestGuidelinesPreserved rewrites the Eval Insights section of tricky
// guidelines.md files through the audited writer and checks that "## My
// Rules" and every other section stay byte-identical.
func TestGuidelinesPreserved(t *testing.T) {
	fakeInFence := "```\n## Eval Insights\nnot a heading: inside a fence\n```\n"
	cases := []struct {
		name string
		doc  string
		how  string
		// want, when set, is the whole expected result.
		want string
	}{
		{
			name: "template",
			doc:  "# Guidelines\n\nIntro.\n\n## Eval Insights\n\nold insights\n\n## My Rules\n\n- mine\n",
			how:  "replaced",
			want: "# Guidelines\n\nIntro.\n\n" + newSection + "\n## My Rules\n\n- mine\n",
		},
		{
			name: "crlf with a fenced fake in My Rules",
			doc:  "# Guidelines\r\n\r\n## Eval Insights\r\n\r\nold\r\n\r\n## My Rules\r\n\r\n```\r\n## Eval Insights\r\n```\r\n- keep me\r\n",
			how:  "replaced",
			want: "# Guidelines\r\n\r\n" + strings.ReplaceAll(newSection, "\n", "\r\n") + "\r\n## My Rules\r\n\r\n```\r\n## Eval Insights\r\n```\r\n- keep me\r\n",
		},
		{
			name: "only a fenced fake: the section is appended",
			doc:  "# Guidelines\n\n## My Rules\n\n" + fakeInFence + "- rule\n",
			how:  "appended",
			want: "# Guidelines\n\n## My Rules\n\n" + fakeInFence + "- rule\n" + newSection,
		},
		{
			name: "tilde fence holding a backtick fence and the heading",
			doc:  "## My Rules\n\n~~~markdown\n```\n## Eval Insights\n```\n~~~\n\n## Eval Insights\n\nold\n",
			how:  "replaced",
			want: "## My Rules\n\n~~~markdown\n```\n## Eval Insights\n```\n~~~\n\n" + newSection,
		},
		{
			name: "fence with info string, longer close and trailing spaces",
			doc:  "## My Rules\n\n````markdown\n```bash\n## Eval Insights\n```\n````   \n- rule\n\n## Eval Insights\nold\n",
			how:  "replaced",
			want: "## My Rules\n\n````markdown\n```bash\n## Eval Insights\n```\n````   \n- rule\n\n" + newSection,
		},
		{
			name: "html comment holding the heading",
			doc:  "## My Rules\n\n<!--\n## Eval Insights\nhidden\n-->\n- rule\n",
			how:  "appended",
			want: "## My Rules\n\n<!--\n## Eval Insights\nhidden\n-->\n- rule\n" + newSection,
		},
		{
			name: "indented code holding the heading",
			doc:  "## My Rules\n\n    ## Eval Insights\n\n- rule\n",
			how:  "appended",
			want: "## My Rules\n\n    ## Eval Insights\n\n- rule\n" + newSection,
		},
		{
			name: "section after My Rules stays in place",
			doc:  "## My Rules\n\n" + fakeInFence + "\n## Eval Insights (auto-generated 2026-01-01)\n\nold\n\n## Notes\n\nmine too\n",
			how:  "replaced",
			want: "## My Rules\n\n" + fakeInFence + "\n" + newSection + "\n## Notes\n\nmine too\n",
		},
		{
			name: "no final newline after My Rules",
			doc:  "# Guidelines\n\n## My Rules\n\n- last rule",
			how:  "inserted before ## My Rules",
			want: "# Guidelines\n\n" + newSection + "\n## My Rules\n\n- last rule",
		},
		{
			name: "My Rules ends inside an unclosed fence",
			doc:  "# Guidelines\n\n## My Rules\n\n```\n## Eval Insights\n",
			how:  "inserted before ## My Rules",
			want: "# Guidelines\n\n" + newSection + "\n## My Rules\n\n```\n## Eval Insights\n",
		},
		{
			name: "a section whose title only starts with Eval Insights is not ours",
			doc:  "## Eval Insights Archive\n\nkept\n\n## My Rules\n\n- rule\n",
			how:  "appended",
			want: "## Eval Insights Archive\n\nkept\n\n## My Rules\n\n- rule\n" + newSection,
		},
		{
			name: "empty file",
			doc:  "",
			how:  "appended",
			want: newSection,
		},
		{
			name: "no heading and no final newline",
			doc:  "my notes",
			how:  "appended",
			want: "my notes\n" + newSection,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, dir := emptyWiki(t)
			p := filepath.Join(dir, "guidelines.md")
			if err := os.WriteFile(p, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			how, err := UpdateGuidelines(context.Background(), st, []byte(newSection))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if how != tc.how {
				t.Errorf("how = %q, want %q", how, tc.how)
			}
			if string(got) != tc.want {
				t.Errorf("guidelines.md\n got %q\nwant %q", got, tc.want)
			}
			assertSectionsKept(t, []byte(tc.doc), got)
			// A second run with the same section changes nothing.
			how, err = UpdateGuidelines(context.Background(), st, []byte(newSection))
			if err != nil || how != "unchanged" {
				t.Errorf("second run: %q, %v", how, err)
			}
			again, _ := os.ReadFile(p)
			if !bytes.Equal(again, got) {
				t.Errorf("second run changed the file:\n%q", again)
			}
		})
	}
}

// assertSectionsKept checks that every level-1/2 section of old other than
// Eval Insights occurs byte for byte in new, and that new has exactly one
// Eval Insights section.
func assertSectionsKept(t *testing.T, old, new []byte) {
	t.Helper()
	hs, _ := wiki.Headings(old)
	for _, h := range hs {
		if h.Level == 2 && (h.Title == InsightsTitle || strings.HasPrefix(h.Title, InsightsTitle+" (")) {
			continue
		}
		sec := old[h.Start:h.End]
		if !bytes.Contains(new, sec) {
			t.Errorf("section %q changed", h.Title)
		}
	}
	os, _ := wiki.SectionRange(old, MyRulesTitle)
	ns, _ := wiki.SectionRange(new, MyRulesTitle)
	if (os < 0) != (ns < 0) {
		t.Errorf("My Rules appeared or vanished")
	}
	n := 0
	nhs, _ := wiki.Headings(new)
	for _, h := range nhs {
		if h.Level == 2 && strings.HasPrefix(h.Title, InsightsTitle+" (auto-generated") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d Eval Insights sections in the result", n)
	}
}

func emptyWiki(t *testing.T) (*wiki.Store, string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

// TestGuidelinesMissingIsCreated: without guidelines.md, eval writes the
// starting template with its section filled in; My Rules is the template's.
func TestGuidelinesMissingIsCreated(t *testing.T) {
	st, dir := emptyWiki(t)
	p := filepath.Join(dir, "guidelines.md")
	os.Remove(p)
	how, err := UpdateGuidelines(context.Background(), st, []byte(newSection))
	if err != nil || how != "created" {
		t.Fatalf("how = %q, err = %v", how, err)
	}
	got, _ := os.ReadFile(p)
	tmpl, _ := wiki.Template("guidelines.md")
	ms, me := wiki.SectionRange(tmpl, MyRulesTitle)
	if !bytes.Contains(got, tmpl[ms:me]) || !bytes.Contains(got, []byte(newSection)) {
		t.Errorf("created guidelines.md:\n%s", got)
	}
}

// TestGuidelinesUnclosedBlockWithoutSection: a file that ends inside an
// unclosed fence and has no section to insert before is refused; nothing
// is written.
func TestGuidelinesUnclosedBlockWithoutSection(t *testing.T) {
	st, dir := emptyWiki(t)
	p := filepath.Join(dir, "guidelines.md")
	doc := []byte("# Guidelines\n\n```\nunclosed\n")
	os.WriteFile(p, doc, 0o644)
	if _, err := UpdateGuidelines(context.Background(), st, []byte(newSection)); store.CodeOf(err) != store.CodeInvalid || !strings.Contains(err.Error(), "unclosed code fence") {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, doc) {
		t.Errorf("file changed: %q", got)
	}
}

// TestWriterRefusesMyRulesChange: even a caller that tries is stopped by the
// writer.
func TestWriterRefusesMyRulesChange(t *testing.T) {
	st, dir := emptyWiki(t)
	p := filepath.Join(dir, "guidelines.md")
	doc := []byte("## Eval Insights\n\nold\n\n## My Rules\n\n- mine\n")
	os.WriteFile(p, doc, 0o644)
	err := st.Update(context.Background(), func(tx *store.Tx) error {
		return tx.Replace("guidelines.md", []byte("## Eval Insights\n\nnew\n\n## My Rules\n\n- changed\n"), "")
	})
	if store.CodeOf(err) != store.CodeInvalid {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, doc) {
		t.Errorf("file changed")
	}
}
