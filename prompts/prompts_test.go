package prompts

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/mark3labs/mcp-go/mcp"
)

// everyTool is every tool name llmwiki has or plans (README: Tools): a
// rendered prompt may name one only when the server offers it.
var everyTool = []string{
	"load_project", "read_page", "list_pages", "search_wiki", "gather_sources",
	"validate_structure", "lint_findings", "submit_lint_findings", "dismiss_lint_findings", "atomic_write_context", "write_page",
	"edit_page", "research_save", "save_source", "append_log", "rebuild_index",
	"restore_snapshot", "move_page", "propose_plan", "apply_plan", "file_answer",
	"propose_changes",
}

func TestPromptFiles(t *testing.T) {
	var names []string
	for _, p := range All() {
		names = append(names, p.Name)
		if p.Title == "" || len(p.Description) < 40 {
			t.Errorf("%s: needs a title and a description that says what it does", p.Name)
		}
		if len(p.Requires) == 0 {
			t.Errorf("%s: requires no tool", p.Name)
		}
		for _, a := range p.Arguments {
			if a.Description == "" {
				t.Errorf("%s: argument %s has no description", p.Name, a.Name)
			}
			switch a.Complete {
			case "", CompletePage, CompleteSource, CompleteFolder, CompleteTopic:
			default:
				t.Errorf("%s: argument %s: unknown completion %q", p.Name, a.Name, a.Complete)
			}
		}
		for _, r := range p.Requires {
			if !contains(everyTool, r) {
				t.Errorf("%s requires unknown tool %s", p.Name, r)
			}
		}
	}
	if want := []string{"build", "ingest", "lint", "query", "research"}; !reflect.DeepEqual(names, want) {
		t.Errorf("prompts = %v, want %v", names, want)
	}
}

// TestRenderNamesOnlyOfferedTools renders every prompt against tool sets from
// the full catalogue down to the minimum it requires: it must render, name
// every tool it requires, and name no tool the set lacks.
func TestRenderNamesOnlyOfferedTools(t *testing.T) {
	args := map[string]map[string]string{
		"ingest":   {"path": "sources/a.md"},
		"build":    {"under": "sources/papers"},
		"query":    {"question": "What is a slug?", "page": "slugs"},
		"lint":     {"page": "slugs"},
		"research": {"topic": "bm25"},
	}
	for _, p := range All() {
		sets := map[string][]string{
			"all":      everyTool,
			"required": p.Requires,
			"no-optional-search": without(everyTool, "search_wiki", "list_pages", "edit_page", "file_answer", "lint_findings", "submit_lint_findings", "dismiss_lint_findings",
				"validate_structure", "rebuild_index", "save_source"),
		}
		for setName, tools := range sets {
			for _, withArgs := range []bool{true, false} {
				var out string
				var err error
				if withArgs {
					out, err = p.Render(args[p.Name], tools)
				} else {
					out, err = p.RenderGeneric(tools)
				}
				if err != nil {
					t.Errorf("%s/%s: %v", p.Name, setName, err)
					continue
				}
				for _, name := range everyTool {
					named := strings.Contains(out, "`"+name+"`")
					if named && !contains(tools, name) {
						t.Errorf("%s/%s names %s, which the set lacks", p.Name, setName, name)
					}
				}
				for _, r := range p.Requires {
					if !strings.Contains(out, "`"+r+"`") {
						t.Errorf("%s/%s never names required tool %s", p.Name, setName, r)
					}
				}
				if strings.Contains(out, "<no value>") || strings.Contains(out, "{{") {
					t.Errorf("%s/%s: template residue:\n%s", p.Name, setName, out)
				}
				if strings.Contains(out, "\n\n\n") {
					t.Errorf("%s/%s: runs of blank lines", p.Name, setName)
				}
			}
		}
	}
}

func TestRenderArguments(t *testing.T) {
	ingest := Get("ingest")
	out, err := ingest.Render(map[string]string{"path": " sources/x.md "}, everyTool)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Source: `sources/x.md`") {
		t.Errorf("argument not placed:\n%s", out)
	}
	if _, err := ingest.Render(map[string]string{}, everyTool); err == nil || !strings.Contains(err.Error(), `needs the argument "path"`) {
		t.Errorf("missing required argument: err = %v", err)
	}
	if _, err := ingest.Render(map[string]string{"path": "x", "colour": "red"}, everyTool); err == nil || !strings.Contains(err.Error(), `no argument "colour"`) {
		t.Errorf("unknown argument: err = %v", err)
	}
	// Order of steps: load_project before anything, append_log last.
	first, last := strings.Index(out, "`load_project`"), strings.LastIndex(out, "`append_log`")
	for _, name := range []string{"read_page", "write_page", "search_wiki"} {
		i := strings.Index(out, "`"+name+"`")
		if i < first || i > last {
			t.Errorf("%s is not between load_project and append_log", name)
		}
	}
}

// TestReviewModes: every workflow that writes pages or context.md says what
// each review mode means for it and never to retry a pending write; the one
// change set per source (propose_changes) is asked for only where the server
// offers that tool.
func TestReviewModes(t *testing.T) {
	for _, name := range []string{"ingest", "build", "research"} {
		p := Get(name)
		for _, offered := range []bool{true, false} {
			tools := everyTool
			if !offered {
				tools = without(everyTool, "propose_changes")
			}
			out, err := p.RenderGeneric(tools)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"review mode", "`before`", "`after`", "\"pending\"", "never", "`llmwiki ui`", "`llmwiki review`"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s (propose_changes offered: %v) lacks %q", name, offered, want)
				}
			}
			if name == "research" {
				if strings.Contains(out, "`propose_changes`") {
					t.Errorf("research proposes changes; its notes are sources, never reviewed")
				}
				continue
			}
			for _, want := range []string{"`off`", "declined", "approve", "You cannot approve anything yourself"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s (propose_changes offered: %v) lacks %q", name, offered, want)
				}
			}
			if got := strings.Contains(out, "ONE call of `propose_changes`") || strings.Contains(out, "call `propose_changes` instead, once"); got != offered {
				t.Errorf("%s: asks for one change set = %v with propose_changes offered = %v", name, got, offered)
			}
		}
	}
}

// TestPromptNamesTheWikisReviewMode: prompts/get names the mode schema.md
// sets now (the default, then before); a sub-agent's generic text, written
// once for every wiki, names none.
func TestPromptNamesTheWikisReviewMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pv := NewProvider(st, everyTool, nil)
	get := func(name string, args map[string]string) string {
		t.Helper()
		for _, sp := range pv.ServerPrompts() {
			if sp.Prompt.Name != name {
				continue
			}
			req := mcp.GetPromptRequest{}
			req.Params.Name, req.Params.Arguments = name, args
			res, err := sp.Handler(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			return res.Messages[0].Content.(mcp.TextContent).Text
		}
		t.Fatalf("prompt %s not offered", name)
		return ""
	}
	args := map[string]map[string]string{"ingest": {"path": "sources/a.md"}, "build": {}, "research": {"topic": "bm25"}}
	for _, mode := range []string{wiki.DefaultReview, wiki.ReviewBefore} {
		if mode != wiki.DefaultReview {
			if err := os.WriteFile(filepath.Join(dir, "schema.md"), []byte("---\nreview: "+mode+"\n---\n# Schema\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for name, a := range args {
			if got, want := get(name, a), "this wiki's is `"+mode+"`"; !strings.Contains(got, want) {
				t.Errorf("%s in mode %s lacks %q", name, mode, want)
			}
		}
	}
	for name := range args {
		out, err := Get(name).RenderGeneric(everyTool)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "this wiki's is") {
			t.Errorf("generic %s names a mode", name)
		}
	}
}

func TestAvailable(t *testing.T) {
	readOnly := []string{"load_project", "read_page", "list_pages", "gather_sources", "validate_structure", "search_wiki"}
	var got []string
	for _, p := range NewProvider(nil, readOnly, nil).Prompts() {
		got = append(got, p.Name)
	}
	// query and lint need only read tools; the others write.
	if want := []string{"lint", "query"}; !reflect.DeepEqual(got, want) {
		t.Errorf("read-only prompts = %v, want %v", got, want)
	}
}

func TestComplete(t *testing.T) {
	cands := []string{"sources/notes/a.md", "sources/papers/bm25.md", "sources/papers/Zipf.md", "sources/notes/about-papers.md"}
	cases := []struct {
		typed string
		want  []string
	}{
		{"", cands},
		{"papers", []string{"sources/papers/bm25.md", "sources/papers/Zipf.md", "sources/notes/about-papers.md"}},
		{"sources/papers/z", []string{"sources/papers/Zipf.md"}},
		{"ZIPF", []string{"sources/papers/Zipf.md"}},
		{"nothing", []string{}},
	}
	for _, c := range cases {
		got := Complete(cands, c.typed)
		if !reflect.DeepEqual(got.Values, c.want) || got.Total != len(c.want) || got.HasMore {
			t.Errorf("Complete(%q) = %+v, want %v", c.typed, got, c.want)
		}
	}
	var many []string
	for i := 0; i < 250; i++ {
		many = append(many, "p-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"-"+string(rune('a'+i/26)))
	}
	got := Complete(many, "p-")
	if len(got.Values) != MaxCompletions || !got.HasMore || got.Total != 250 {
		t.Errorf("capped completion: %d values, total %d, hasMore %v", len(got.Values), got.Total, got.HasMore)
	}
}

// TestProviderCompletions completes against a real wiki: page slugs, source
// paths (new ones first), folders and research topics.
func TestProviderCompletions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, title := range []string{"Graph view", "Graph analysis", "Slugs"} {
		if _, err := st.WritePage(ctx, wiki.PageInput{Title: title, Summary: "s", Content: "b\n"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"sources/papers/bm25.md", "sources/notes/a.md"} {
		if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: p, Content: "text\n"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ResearchSave(ctx, wiki.ResearchInput{Topic: "Ranking functions", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	pv := NewProvider(st, everyTool, nil)
	complete := func(prompt, arg, typed string) []string {
		t.Helper()
		c, err := pv.CompletePromptArgument(ctx, prompt, mcp.CompleteArgument{Name: arg, Value: typed}, mcp.CompleteContext{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Values
	}
	if got, want := complete("query", "page", "graph"), []string{"graph-analysis", "graph-view"}; !reflect.DeepEqual(got, want) {
		t.Errorf("page slugs = %v, want %v", got, want)
	}
	if got, want := complete("ingest", "path", "papers"), []string{"sources/papers/bm25.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("source paths = %v, want %v", got, want)
	}
	if got, want := complete("build", "under", ""), []string{"sources/notes", "sources/papers", "sources/research"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folders = %v, want %v", got, want)
	}
	if got, want := complete("research", "topic", "rank"), []string{"ranking-functions"}; !reflect.DeepEqual(got, want) {
		t.Errorf("topics = %v, want %v", got, want)
	}
	if got := complete("query", "question", "gr"); len(got) != 0 {
		t.Errorf("free-text argument completed: %v", got)
	}
	if got := complete("nope", "page", ""); len(got) != 0 {
		t.Errorf("unknown prompt completed: %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, x := range list {
		if !contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}
