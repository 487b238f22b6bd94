package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// Catalogue returns every tool llmwiki offers, in the order tools/list shows
// them. It is the single registry: the server, the README's tool table, the
// schema snapshots and the agents' allowlists are all generated from it.
func Catalogue(d Deps) []Tool {
	return []Tool{
		LoadProject(d),
		ReadPage(d),
		ListPages(d),
		SearchWiki(d),
		GatherSources(d),
		ValidateStructure(d),
		LintFindings(d),
		SubmitLintFindings(d),
		DismissLintFindings(d),
		AtomicWriteContext(d),
		WritePage(d),
		EditPage(d),
		MovePage(d),
		ProposeChanges(d),
		ListSnapshots(d),
		PageHistory(d),
		RestoreSnapshot(d),
		ResearchSave(d),
		SaveSource(d),
		AppendLog(d),
		RebuildIndex(d),
		ProposePlan(d),
		ApplyPlan(d),
		FileAnswer(d),
	}
}

// Options selects which tools [Register] puts on a server.
type Options struct {
	// ReadOnly registers only tools annotated read-only.
	ReadOnly bool
	// Toolsets, when not empty, registers only tools of these toolsets.
	Toolsets []string
	// PastHandshake, when set, is called ([NewServer]) before every request
	// that is not part of a client's opening handshake (initialize,
	// server/discover, ping, logging/setLevel and the list methods): a
	// server starts its background work there,
	// so that work does not compete with the first answers.
	PastHandshake func()
	// Cancelled, when set, is asked ([NewServer]) before every request
	// runs, with the request's JSON-RPC id: true means the client cancelled
	// it before it started (the transport saw its notifications/cancelled
	// first), and it is refused before any handler runs; a tools/call gets
	// its audit line, code cancelled. The transport sends no answer.
	Cancelled func(ctx context.Context, id any) bool
}

// ToolsetDoc documents one toolset: a group of tools a client can load on
// its own with serve --toolsets, so a client with a small context budget (a
// local 3B model, an editor with a tool cap) loads only what its workflow
// needs. Every tool belongs to exactly one toolset.
type ToolsetDoc struct {
	Name string
	// Summary says what the group is for, in one line (README, --help).
	Summary string
}

// ToolsetDocs lists the toolsets, in the order help shows them. A tool whose
// Toolset is not listed here fails TestCatalogueChecks: add a line when a
// new group is needed, and keep the README table in step (it is generated).
var ToolsetDocs = []ToolsetDoc{
	{"core", "orientation, reading, searching and the log: enough to answer questions from the wiki"},
	{"build", "folding sources into context.md and regenerating index.md"},
	{"pages", "writing, editing, moving and restoring pages"},
	{"sources", "adding raw documents and research notes under sources/"},
	{"lint", "checking the wiki's layout and content"},
	{"plans", "plans a model proposes and a person approves before they run"},
}

// Toolsets returns the names of the documented toolsets, in [ToolsetDocs]
// order. "all" selects every one.
func Toolsets(Deps) []string {
	out := make([]string, 0, len(ToolsetDocs))
	for _, t := range ToolsetDocs {
		out = append(out, t.Name)
	}
	return out
}

// Select filters the catalogue by opts. An unknown toolset name is an error
// that lists the known ones.
func Select(d Deps, opts Options) ([]Tool, error) {
	all := Catalogue(d)
	want := map[string]bool{}
	if len(opts.Toolsets) > 0 {
		known := Toolsets(d)
		isKnown := map[string]bool{"all": true}
		for _, k := range known {
			isKnown[k] = true
		}
		for _, s := range opts.Toolsets {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			if !isKnown[s] {
				return nil, fmt.Errorf("unknown toolset %q; known toolsets: all, %s", s, strings.Join(known, ", "))
			}
			want[s] = true
		}
	}
	var out []Tool
	for _, t := range all {
		if opts.ReadOnly && !t.ReadOnly() {
			continue
		}
		if len(want) > 0 && !want["all"] && !want[t.Toolset] {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// Register adds the selected tools to s and returns their names.
func Register(s *server.MCPServer, d Deps, opts Options) ([]string, error) {
	sel, err := Select(d, opts)
	if err != nil {
		return nil, err
	}
	return addTools(s, sel), nil
}

// addTools adds sel to s and returns their names.
func addTools(s *server.MCPServer, sel []Tool) []string {
	names := make([]string, 0, len(sel))
	st := make([]server.ServerTool, 0, len(sel))
	for _, t := range sel {
		st = append(st, server.ServerTool{Tool: t.Tool, Handler: t.Handler})
		names = append(names, t.Tool.Name)
	}
	s.AddTools(st...)
	return names
}
