package links

import (
	"reflect"
	"testing"
)

func TestResolve(t *testing.T) {
	files := []string{
		"pages/en/Plugins/Graph view.md",
		"pages/de/Plugins/Graph view.md",
		"pages/en/Home.md",
		"pages/en/Projects/Three laws of motion.md",
		"pages/en/img/Engelbart.jpg",
		"pages/Release notes/v0.10.1.md",
		"pages/a/Canvas.md",
		"pages/b/Canvas.md",
		"pages/Café.md",
		"sources/notes.md",
		"context.md",
		"index.md",
	}
	aliases := map[string][]string{"pages/en/Home.md": {"Start here", "How to/Home"}}
	r := NewResolver(files, aliases)
	cases := []struct {
		from, target string
		want         Resolution
	}{
		{"pages/en/Home.md", "Graph view", Resolution{Path: "pages/en/Plugins/Graph view.md", By: ByName}},
		{"pages/de/x.md", "graph VIEW", Resolution{Path: "pages/de/Plugins/Graph view.md", By: ByName}},
		{"pages/en/Home.md", "Graph view.md", Resolution{Path: "pages/en/Plugins/Graph view.md", By: ByName}},
		{"pages/en/Home.md", "de/Plugins/Graph view", Resolution{Path: "pages/de/Plugins/Graph view.md", By: ByPath}},
		{"pages/en/Home.md", "Projects/Three laws of motion", Resolution{Path: "pages/en/Projects/Three laws of motion.md", By: ByPath}},
		{"pages/en/Home.md", "/pages/en/Home", Resolution{Path: "pages/en/Home.md", By: ByPath}},
		{"pages/en/Home.md", "Engelbart.jpg", Resolution{Path: "pages/en/img/Engelbart.jpg", By: ByName}},
		{"pages/en/Home.md", "Engelbart", Resolution{}},
		{"pages/x.md", "v0.10.1", Resolution{Path: "pages/Release notes/v0.10.1.md", By: ByName}},
		{"pages/x.md", "Start here", Resolution{Path: "pages/en/Home.md", By: ByAlias}},
		{"pages/x.md", "how to/HOME", Resolution{Path: "pages/en/Home.md", By: ByAlias}},
		{"pages/x.md", "Cafe\u0301", Resolution{Path: "pages/Café.md", By: ByName}},
		{"pages/en/Plugins/Graph view.md", "../Home.md", Resolution{Path: "pages/en/Home.md", By: ByRelative}},
		{"pages/en/Home.md", "./Projects/Three laws of motion.md", Resolution{Path: "pages/en/Projects/Three laws of motion.md", By: ByRelative}},
		{"pages/en/Home.md", "../../../../etc/passwd", Resolution{}},
		{"pages/en/Home.md", "", Resolution{Path: "pages/en/Home.md", By: BySelf}},
		{"pages/en/Home.md", "notes", Resolution{Path: "sources/notes.md", By: ByName}},
		{"pages/en/Home.md", "Nowhere", Resolution{}},
		{"pages/a/x.md", "Canvas", Resolution{Path: "pages/a/Canvas.md", By: ByName}},
		{"pages/x.md", "Canvas", Resolution{Path: "pages/a/Canvas.md", By: ByName, Ambiguous: []string{"pages/b/Canvas.md"}}},
		{"pages/x.md", "Graph view", Resolution{Path: "pages/de/Plugins/Graph view.md", By: ByName, Ambiguous: []string{"pages/en/Plugins/Graph view.md"}}},
		{"pages/x.md", "view", Resolution{}},
	}
	for _, c := range cases {
		if got := r.Resolve(c.from, c.target); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Resolve(%q, %q) = %+v, want %+v", c.from, c.target, got, c.want)
		}
	}
	short := []struct {
		from, to string
		ext      bool
		want     string
	}{
		{"pages/en/Home.md", "pages/en/Projects/Three laws of motion.md", false, "Three laws of motion"},
		{"pages/en/Home.md", "pages/en/Projects/Three laws of motion.md", true, "Three laws of motion.md"},
		{"pages/x.md", "pages/b/Canvas.md", false, "b/Canvas"},
		{"pages/x.md", "pages/en/Plugins/Graph view.md", false, "en/Plugins/Graph view"},
		{"pages/x.md", "pages/en/img/Engelbart.jpg", false, "Engelbart.jpg"},
	}
	for _, c := range short {
		if got, ok := r.ShortestTarget(c.from, c.to, c.ext); !ok || got != c.want {
			t.Errorf("ShortestTarget(%q, %q) = %q, %v; want %q", c.from, c.to, got, ok, c.want)
		}
	}
	if got := RelativeTarget("pages/en/Plugins/Graph view.md", "pages/en/Home.md"); got != "../Home.md" {
		t.Errorf("RelativeTarget = %q", got)
	}
	if got := RelativeTarget("index.md", "pages/a.md"); got != "pages/a.md" {
		t.Errorf("RelativeTarget = %q", got)
	}
}

func TestHeadings(t *testing.T) {
	pg := Parse("pages/x.md", []byte("# Help\n\n## Questions and advice\n\n### Report bugs and request features\n\n## Step 1: Install **now**\n\n## Newton’s first law\n\n## FAQ: what is it?\n"))
	cases := []struct {
		hs      []string
		anchors bool
		want    bool
	}{
		{[]string{"Questions and advice", "Report bugs and request features"}, false, true},
		{[]string{"questions AND advice"}, false, true},
		{[]string{"Report bugs and request features", "Questions and advice"}, false, false}, // order matters
		{[]string{"Step 1 Install now"}, false, true},                                        // ":" and emphasis folded
		{[]string{"step-1-install-now"}, true, true},                                         // GitHub-style anchor, markdown links only
		{[]string{"step-1-install-now"}, false, false},
		{[]string{"Newton's first law"}, false, true}, // curly apostrophe
		{[]string{"FAQ: what is it"}, false, true},    // "?" dropped as Obsidian does
		{[]string{"Missing"}, false, false},
	}
	for _, c := range cases {
		if got := HasHeadings(pg, c.hs, c.anchors); got != c.want {
			t.Errorf("HasHeadings(%q) = %v, want %v", c.hs, got, c.want)
		}
	}
}
