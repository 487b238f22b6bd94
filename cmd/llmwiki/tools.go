package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/llmwiki/llmwiki/tools"
)

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return tools.Version
}

func runTools(_ context.Context, e env, args []string) error {
	fs := newFlags(e, "tools", "tools [--markdown]")
	md := fs.Bool("markdown", false, "print the README's tool table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	list := tools.Catalogue(tools.Deps{})
	if *md {
		io.WriteString(e.stdout, toolTable(list))
		return nil
	}
	for _, t := range list {
		mode := "write"
		if t.ReadOnly() {
			mode = "read"
		}
		fmt.Fprintf(e.stdout, "%-22s %-6s %-8s %s\n", t.Tool.Name, mode, t.Toolset, firstSentence(t.Tool.Description))
	}
	return nil
}

// toolTable renders the README's tool table from the registry.
func toolTable(list []tools.Tool) string {
	var b strings.Builder
	b.WriteString("| tool | kind | toolset | what it does |\n|---|---|---|---|\n")
	for _, t := range list {
		mode := "write (audited)"
		if t.ReadOnly() {
			mode = "read-only"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", t.Tool.Name, mode, t.Toolset, mdCell(firstSentence(t.Tool.Description)))
	}
	return b.String()
}

// toolsetTable renders the README's toolset table from the registry: each
// toolset, what it is for, and its tools.
func toolsetTable(list []tools.Tool) string {
	var b strings.Builder
	b.WriteString("| toolset | for | tools |\n|---|---|---|\n")
	for _, ts := range tools.ToolsetDocs {
		var names []string
		for _, t := range list {
			if t.Toolset == ts.Name {
				names = append(names, "`"+t.Tool.Name+"`")
			}
		}
		in := strings.Join(names, ", ")
		if in == "" {
			in = "(none yet)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", ts.Name, mdCell(ts.Summary), in)
	}
	return b.String()
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

// mdCell escapes text for a markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}
