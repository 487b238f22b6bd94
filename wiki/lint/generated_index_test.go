package lint

import (
	"context"
	"reflect"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/links"
)

// TestOrphanGeneratedIndex: with index: auto, the generated index.md lists
// every page, so a page nothing else links to is an orphan; a hand-kept
// index.md (index: manual) and context.md are editorial links and count.
func TestOrphanGeneratedIndex(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	base := func() map[string]string {
		return map[string]string{
			"pages/hub.md":     page("Hub", "Start", []string{"sources/a.md"}, fresh, "See [[linked]].\n"),
			"pages/linked.md":  page("Linked", "Linked from hub", []string{"sources/a.md"}, fresh, "Back to [[hub]].\n"),
			"pages/lonely.md":  page("Lonely", "Nobody links here", []string{"sources/a.md"}, fresh, "Alone.\n"),
			"pages/listed.md":  page("Listed", "Only in the index", []string{"sources/a.md"}, fresh, "Alone too.\n"),
			"pages/curated.md": page("Curated", "Only in context.md", []string{"sources/a.md"}, fresh, "Alone three.\n"),
			"context.md":       "# Context\n\nStart with [[curated]].\n",
			"sources/a.md":     "# A\n",
		}
	}
	for _, tc := range []struct {
		name   string
		schema string
		index  string // hand-written index.md; "" means generate it
		want   []string
	}{
		{"auto", "", "", []string{"pages/listed.md:0", "pages/lonely.md:0"}},
		{"manual", "---\nindex: manual\n---\n# Schema\n", "# Index\n\n- [[listed]]\n", []string{"pages/lonely.md:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := base()
			if tc.schema != "" {
				files["schema.md"] = tc.schema
			}
			if tc.index != "" {
				files["index.md"] = tc.index
			}
			st, _ := newStore(t, files)
			if tc.index == "" {
				if _, err := st.RebuildIndex(ctx); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Run(ctx, st, links.Open(st), Options{Categories: []string{KindOrphanPage}})
			if err != nil {
				t.Fatal(err)
			}
			if got := kindsOf(rep)[KindOrphanPage]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("orphans %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLintGeneratedIndexSummaries: summaries holding link and embed syntax
// that leads nowhere give no finding on the generated index.md.
func TestLintGeneratedIndexSummaries(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	files := map[string]string{
		"pages/a.md":   page("A", `"see [[missing]] and ![[gone.png]]"`, []string{"sources/s.md"}, fresh, "[[b]]\n"),
		"pages/b.md":   page("B", `"a [link](pages/nowhere.md) and ![img](nope.png)"`, []string{"sources/s.md"}, fresh, "[[a]]\n"),
		"sources/s.md": "# A\n",
	}
	st, _ := newStore(t, files)
	if _, err := st.RebuildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Path == "index.md" {
			t.Errorf("finding on the generated index.md: %s %s", f.Kind, f.Message)
		}
	}
}
