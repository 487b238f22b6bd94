package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/llmwiki/llmwiki/internal/english"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Orientation limits: the synthesis excerpt in a session's opening context.
const (
	orientMaxLines = 40
	orientMaxChars = 4000
)

// runOrient prints the wiki's orientation for an agent starting a session:
// sizes, what is pending, recent log, the head of context.md, and how to
// reach the wiki (tools, sub-agents, commands). With --hook it prints the
// JSON a Claude Code SessionStart hook returns
// (hookSpecificOutput.additionalContext,
// https://code.claude.com/docs/en/hooks#sessionstart). It reads only, and
// leaves one audit line.
func runOrient(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "orient", "orient [--root DIR] [--hook]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	hook := fs.Bool("hook", false, "print Claude Code SessionStart hook JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := resolveRoot(e, *rootFlag)
	if *hook && *rootFlag == "" {
		// As capture does at the session's end: the wiki of the project
		// the session runs in (Claude Code runs hooks in the project
		// folder and names it in $CLAUDE_PROJECT_DIR), when its .mcp.json
		// names one.
		cwd := e.getenv("CLAUDE_PROJECT_DIR")
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		if pdir, _, perr := hookRoot(e, "", cwd); perr != nil {
			fmt.Fprintf(e.stderr, "llmwiki orient: %s\n", oneLineMsg(perr.Error()))
		} else {
			dir, err = pdir, nil
		}
	}
	if err != nil {
		return err
	}
	text, err := orientation(ctx, e, dir)
	if err != nil {
		if !*hook {
			return err
		}
		// A session must start even when the wiki cannot be read.
		fmt.Fprintf(e.stderr, "llmwiki orient: %s\n", oneLineMsg(cliMessage(err)))
		text = "llmwiki: the wiki at " + dir + " could not be read (" + oneLineMsg(cliMessage(err)) + "). Its tools will say more."
	}
	if !*hook {
		fmt.Fprint(e.stdout, text)
		return nil
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":     "SessionStart",
		"additionalContext": text,
	}})
	fmt.Fprintln(e.stdout, string(out))
	return nil
}

func orientation(ctx context.Context, e env, dir string) (string, error) {
	if noWiki(dir) != nil {
		return fmt.Sprintf("llmwiki: no wiki at %s yet. The llmwiki MCP server creates it on first use (or run: llmwiki init %s).\n", dir, dir), nil
	}
	st, err := wiki.Open(dir, wiki.WithLogger(newLogger(e)))
	if err != nil {
		return "", err
	}
	defer st.Close()
	call := store.NewCall("cli:orient", st.SessionID(), nil)
	p, err := st.LoadProject(store.WithCall(ctx, call))
	if aerr := st.Audit(call, err); aerr != nil {
		fmt.Fprintf(e.stderr, "llmwiki orient: audit line not written: %s\n", store.PublicMessage(aerr))
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "llmwiki wiki %q at %s: %d pages, %d sources (%d not yet folded into context.md), %d research notes.\n",
		p.Name, dir, p.Counts.Pages, p.Counts.Sources, p.Counts.PendingSources, p.Counts.ResearchNotes)
	if p.LastBuild != "" {
		fmt.Fprintf(&b, "context.md: %d of %d lines, last built %s.\n", p.ContextLines, p.ContextCap, p.LastBuild)
	} else {
		fmt.Fprintf(&b, "context.md has not been built yet (cap %d lines).\n", p.ContextCap)
	}
	if p.IndexStale {
		b.WriteString("index.md is out of date.\n")
	}
	for _, s := range p.Stale {
		fmt.Fprintf(&b, "Stale: %s (%s).\n", s.Name, s.Reason)
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "Problem: %s\n", pr)
	}
	orientReview(&b, st)
	if len(p.RecentLog) > 0 {
		b.WriteString("Recent log:\n")
		for _, l := range p.RecentLog {
			fmt.Fprintf(&b, "  %s\n", strings.TrimPrefix(l, "## "))
		}
	}
	if ctxHead := head(p.Context, orientMaxLines, orientMaxChars); ctxHead != "" {
		b.WriteString("\nSynthesis (context.md, start):\n" + ctxHead + "\n")
	}
	b.WriteString("\nReach this wiki only through the llmwiki MCP tools (call load_project first); never edit its files with Edit, Write or Bash: the tools validate, snapshot and audit every write.\n")
	var subs []string
	for _, a := range agents.Agents() {
		subs = append(subs, a.Name()+" ("+a.Workflow+")")
	}
	b.WriteString("Sub-agents: " + strings.Join(subs, ", ") + ". Workflows are also MCP prompts: ingest, build, query, lint, research.\n")
	return b.String(), nil
}

// orientModes says what each review mode means for an agent.
var orientModes = map[string]string{
	wiki.ReviewOff:    "writes apply at once",
	wiki.ReviewAfter:  "writes apply at once and wait in the review queue for the person",
	wiki.ReviewBefore: "nothing under pages/ or context.md changes until the person approves: discuss the takeaways, then send one change set per source with propose_changes",
}

// orientReview writes the review mode and what awaits the person.
func orientReview(b *strings.Builder, st *wiki.Store) {
	rv := review.New(st, nil, nil)
	mode := rv.Mode()
	fmt.Fprintf(b, "Review mode: %s (%s).\n", mode, orientModes[mode])
	if ps, err := rv.Pending(); err == nil {
		for i, p := range ps {
			if i == 10 {
				fmt.Fprintf(b, "Awaiting review: %d more.\n", len(ps)-i)
				break
			}
			from := ""
			if p.Client != "" {
				from = ", from " + p.Client
			}
			fmt.Fprintf(b, "Awaiting review: %s (%s%s, expires %s UTC); do not propose it again.\n", p.Name(), english.Count(len(p.Actions), "action"), from, p.Expires.UTC().Format("2006-01-02 15:04"))
		}
	}
	if _, _, n, err := rv.Queue(1, ""); err == nil && n > 0 {
		fmt.Fprintf(b, "Unreviewed writes: %d (the person accepts or reverts them on the review page or with llmwiki review).\n", n)
	}
}

// head returns the first lines of s, at most maxLines lines and maxChars
// characters, saying how much was left out.
func head(s string, maxLines, maxChars int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	cut := false
	if len(lines) > maxLines {
		lines, cut = lines[:maxLines], true
	}
	out := strings.Join(lines, "\n")
	if r := []rune(out); len(r) > maxChars {
		out, cut = string(r[:maxChars]), true
	}
	if cut {
		out += "\n[... the rest: read_page context.md]"
	}
	return out
}
