package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// essay returns n sentences of distinct words (seeded), for near-duplicate
// tests.
func essay(seed, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Sentence %d of essay %d talks about topic%d and detail%d with care. ", i, seed, (i*7+seed)%13, i*seed+3)
	}
	return b.String()
}

func page(title, summary string, sources []string, updated, body string) string {
	var b strings.Builder
	b.WriteString("---\ntitle: " + title + "\n")
	if summary != "" {
		b.WriteString("summary: " + summary + "\n")
	}
	if len(sources) > 0 {
		b.WriteString("sources: [" + strings.Join(sources, ", ") + "]\n")
	}
	if updated != "" {
		b.WriteString("updated: " + updated + "\n")
	}
	b.WriteString("---\n" + body)
	return b.String()
}

func kindsOf(rep *Report) map[string][]string {
	out := map[string][]string{}
	for _, f := range rep.Findings {
		out[f.Kind] = append(out[f.Kind], fmt.Sprintf("%s:%d", f.Path, f.Line))
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func TestRunCategories(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	long := essay(1, 40)
	files := map[string]string{
		"pages/home.md":      page("Home", "Start here", []string{"sources/a.md"}, fresh, "# Home\n\nSee [[guide]], [[guide#Setup]], [[guide#Nope]], [[guide#^b1]], [[guide#^zz]], [[nowhere]], [[Guide Book]] and ![[missing.png]].\nAlso [[dup]] and [[Dup one]].\n"),
		"pages/guide.md":     page("Guide", "How to", []string{"sources/a.md", "sources/gone.md", "https://example.com/x"}, fresh, "# Guide\n\n## Setup\n\nDo it. ^b1\n\nBack [[home]].\n"),
		"pages/old.md":       page("Old", "An old page", []string{"sources/a.md"}, "2024-01-01T00:00:00Z", "[[home]]\n"),
		"pages/nosrc.md":     page("No sources", "", nil, fresh, "[[home]]\n"),
		"pages/orphan.md":    page("Orphan", "Nobody links here", []string{"sources/a.md"}, fresh, "Lonely.\n"),
		"pages/exempt.md":    page("Exempt", "Exempt from orphans", []string{"sources/a.md"}, fresh, "Also lonely.\n"),
		"pages/a/dup.md":     page("Same title", "x", []string{"sources/a.md"}, fresh, "[[home]]\n"),
		"pages/b/dup.md":     page("Same title", "y", []string{"sources/a.md"}, fresh, "[[home]] [[b/dup]]\n"),
		"pages/aliased.md":   "---\ntitle: Aliased\nsummary: s\nsources: [sources/a.md]\naliases: [Guide Book, Home]\nupdated: " + fresh + "\n---\n[[home]] [[a/dup]]\n",
		"pages/aliased2.md":  "---\ntitle: Aliased two\nsummary: s\nsources: [sources/a.md]\naliases: [guide book]\nupdated: " + fresh + "\n---\n[[home]]\n",
		"pages/broken.md":    "---\ntitle: [unclosed\n---\n[[home]]\n",
		"pages/twin1.md":     page("Twin one", "t", []string{"sources/a.md"}, fresh, long+"\n[[home]]\n"),
		"pages/twin2.md":     page("Twin two", "t", []string{"sources/a.md"}, fresh, long+" One more sentence at the end.\n[[home]]\n"),
		"pages/unrelated.md": page("Unrelated", "u", []string{"sources/a.md"}, fresh, essay(2, 40)+"\n[[home]]\n"),
		"sources/a.md":       "# A source\n",
		"context.md":         "---\nbuilt_at: x\n---\n" + strings.Repeat("line\n", 5) + "[[twin1]] [[twin2]] [[unrelated]] [[aliased]] [[aliased2]] [[nosrc]] [[old]] [[broken]]\n",
		"schema.md":          "---\ncontext_max_lines: 4\nrequired_frontmatter: [title, summary]\nstale_after_days: 180\norphan_exempt: [exempt]\nlint_disabled: [no_such_category]\n---\n# Schema\n",
	}
	st, dir := newStore(t, files)
	// The source changed after guide.md was last updated.
	later := teststore.FixedNow.Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "sources", "a.md"), later, later)
	rep, err := Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := kindsOf(rep)
	// [[Guide Book]] is an alias of two pages and [[dup]] matches a/dup.md
	// and b/dup.md: both ambiguous; [[dup]] leads to a/dup.md, so
	// b/dup.md (which only links to itself) is an orphan.
	want := map[string][]string{
		KindDanglingLink:       {"pages/home.md:10", "pages/home.md:9"},
		KindMissingEmbed:       {"pages/home.md:9"},
		KindMissingHeading:     {"pages/home.md:9", "pages/home.md:9"},
		KindAmbiguousLink:      {"pages/home.md:10", "pages/home.md:9"},
		KindOrphanPage:         {"pages/b/dup.md:0", "pages/orphan.md:0"},
		KindPageWithoutSources: {"pages/nosrc.md:0"},
		KindMissingSource:      {"pages/guide.md:4"},
		KindMissingFrontmatter: {"pages/nosrc.md:1"},
		KindStalePage:          {"pages/a/dup.md:0", "pages/aliased.md:0", "pages/aliased2.md:0", "pages/b/dup.md:0", "pages/exempt.md:0", "pages/guide.md:0", "pages/home.md:0", "pages/old.md:0", "pages/orphan.md:0", "pages/twin1.md:0", "pages/twin2.md:0", "pages/unrelated.md:0"},
		KindDuplicateTitle:     {"pages/a/dup.md:0"},
		KindDuplicateAlias:     {"pages/aliased.md:5", "pages/aliased.md:5"},
		KindMergeCandidate:     {"pages/twin1.md:0"},
		KindIndexDrift:         {"index.md:0"},
		KindContextOverCap:     {"context.md:8"},
		KindBadFrontmatter:     {"pages/broken.md:1"},
	}
	if !reflect.DeepEqual(got, want) {
		for k := range mergeKeys(got, want) {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s: got %v, want %v", k, got[k], want[k])
			}
		}
		for _, f := range rep.Findings {
			t.Logf("%s %s:%d %s", f.Kind, f.Path, f.Line, f.Message)
		}
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "no_such_category") {
		t.Errorf("problems %v", rep.Problems)
	}
	if rep.Severities.Error != len(got[KindDanglingLink])+len(got[KindMissingEmbed])+len(got[KindContextOverCap])+len(got[KindBadFrontmatter]) {
		t.Errorf("errors = %d", rep.Severities.Error)
	}
	for _, f := range rep.Findings {
		if f.ID == "" || f.Message == "" || f.Action == "" || f.Severity != SeverityOf(f.Kind) || !f.Verified || f.Source != "lint" {
			t.Errorf("incomplete finding %+v", f)
		}
	}
	// Ids are stable across runs.
	rep2, _ := Run(ctx, st, links.Open(st), Options{})
	if !reflect.DeepEqual(ids(rep), ids(rep2)) {
		t.Error("ids changed between two runs of an unchanged wiki")
	}
	// Filters.
	rep3, _ := Run(ctx, st, links.Open(st), Options{Categories: []string{KindOrphanPage, KindDuplicateTitle}, Prefix: "pages/"})
	if k := kindsOf(rep3); len(k) != 2 || len(k[KindOrphanPage]) != 2 {
		t.Errorf("filtered run: %v", k)
	}
	if _, err := Run(ctx, st, links.Open(st), Options{Categories: []string{"bogus"}}); store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("unknown category: %v", err)
	}
	// A filtered run keeps the other categories' findings for dismissal.
	var orphanID, staleID string
	for _, f := range rep.Findings {
		switch f.Kind {
		case KindOrphanPage:
			orphanID = f.ID
		case KindStalePage:
			if f.Path == "pages/old.md" {
				staleID = f.ID
			}
		}
	}
	if _, err := Dismiss(ctx, st, links.Open(st), []string{orphanID, staleID}, "fine as it is", "me"); err != nil {
		t.Fatal(err)
	}
	rep4, _ := Run(ctx, st, links.Open(st), Options{})
	if rep4.Dismissed != 2 || len(rep4.Findings) != len(rep.Findings)-2 {
		t.Errorf("after dismissing 2: %d findings (was %d), dismissed %d", len(rep4.Findings), len(rep.Findings), rep4.Dismissed)
	}
	// A path prefix with dismissals: the findings of the full run under
	// the prefix, less the dismissed ones unless they are asked for.
	for _, tc := range []struct {
		prefix    string
		all       bool
		dismissed int // dismissed findings under the prefix
	}{
		{"pages/", false, 2},
		{"pages/", true, 2},
		{"pages/old", false, 1},
		{"pages/old", true, 1},
		{"index.md", false, 0},
	} {
		got, err := Run(ctx, st, links.Open(st), Options{Prefix: tc.prefix, IncludeDismissed: tc.all})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range rep.Findings {
			if strings.HasPrefix(f.Path, tc.prefix) && (tc.all || (f.ID != orphanID && f.ID != staleID)) {
				want = append(want, f.ID)
			}
		}
		if !reflect.DeepEqual(ids(got), want) || got.Dismissed != tc.dismissed {
			t.Errorf("prefix %q, all %v: ids %v, dismissed %d; want %v, %d", tc.prefix, tc.all, ids(got), got.Dismissed, want, tc.dismissed)
		}
	}
}

func mergeKeys(a, b map[string][]string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

func ids(rep *Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.ID)
	}
	return out
}

func TestSettings(t *testing.T) {
	s := SettingsFrom(wiki.ParseSettings(map[string]any{
		"lint_disabled":        []any{"orphan_page", "merge_candidate", "nope"},
		"orphan_exempt":        []any{"home", "journal/*", "pages/en/Start.md"},
		"stale_after_days":     "soon",
		"required_frontmatter": []any{"title"},
		"merge_similarity":     0.3,
	}))
	if !s.Disabled[KindOrphanPage] || !s.Disabled[KindMergeCandidate] || len(s.Disabled) != 2 {
		t.Errorf("disabled %v", s.Disabled)
	}
	if s.StaleAfterDays != DefaultStaleAfterDays || s.MergeSimilarity != DefaultMergeSimilarity || len(s.Problems) != 3 {
		t.Errorf("bad values not refused: %+v", s)
	}
	if !reflect.DeepEqual(s.Required, []string{"title"}) {
		t.Errorf("required %v", s.Required)
	}
	for p, want := range map[string]bool{"pages/home.md": true, "pages/Home.md": true, "pages/journal/2026-01-01.md": true, "pages/en/Start.md": true, "pages/en/home.md": false, "pages/other.md": false} {
		if s.exempt(p) != want {
			t.Errorf("exempt(%s) = %v", p, !want)
		}
	}
	// The starting schema.md's settings are all understood.
	tmpl, _ := wiki.Template("schema.md")
	d, err := mdoc.ParseDoc("schema.md", tmpl)
	if err != nil {
		t.Fatal(err)
	}
	s = SettingsFrom(wiki.ParseSettings(d.Meta))
	if len(s.Problems) != 0 || s.StaleAfterDays != 180 || !reflect.DeepEqual(s.Required, []string{"title", "summary"}) {
		t.Errorf("template settings: %+v", s)
	}
}

func TestSortFindings(t *testing.T) {
	var fs []Finding
	kinds := []string{KindOrphanPage, KindDanglingLink, KindMergeCandidate, KindStalePage}
	for i := 0; i < 500; i++ {
		k := kinds[(i*7)%len(kinds)]
		fs = append(fs, Finding{ID: fmt.Sprintf("%03d", i), Kind: k, Severity: SeverityOf(k), Path: fmt.Sprintf("pages/%d.md", (i*13)%17), Line: (i * 31) % 5})
	}
	want := append([]Finding(nil), fs...)
	sort.SliceStable(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if severityRank(a.Severity) != severityRank(b.Severity) {
			return severityRank(a.Severity) < severityRank(b.Severity)
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.ID < b.ID
	})
	sortFindings(fs)
	if !reflect.DeepEqual(fs, want) {
		t.Error("sortFindings differs from a plain stable sort")
	}
}
