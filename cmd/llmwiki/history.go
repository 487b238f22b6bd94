package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
)

// historyJSON is `llmwiki history --json`: page_history's result.
type historyJSON struct {
	git.History
	Warnings []string `json:"warnings"`
}

// runHistory lists a page's versions for a person: its commits with git
// on (following moves), else its snapshots and the file on disk; the same
// list page_history gives an agent.
func runHistory(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "history", "history [--root DIR] [--limit N] [--cursor C] [--json] PAGE")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	asJSON := fs.Bool("json", false, "print JSON (page_history's result)")
	limit := fs.Int("limit", git.DefaultHistoryLimit, fmt.Sprintf("most versions to show, newest first (at most %d)", git.MaxHistoryLimit))
	cursor := fs.String("cursor", "", "continue the list at the next_cursor a --json run printed")
	rest, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("history takes one page: a slug, title, alias or path (pages/x.md, context.md)")
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	var warnings []string
	var repo *git.Repo
	if st.Settings().Git != wiki.GitOff {
		if repo, err = git.Open(ctx, st); err != nil {
			warnings = append(warnings, "git is on in schema.md but unavailable ("+cliError(err).Error()+"); showing the stored snapshots")
			repo = nil
		}
	}
	q := git.HistoryQuery{Page: rest[0], Limit: *limit, Cursor: *cursor}
	if strings.HasSuffix(rest[0], ".md") {
		// A path: also a page moved away or deleted.
		q = git.HistoryQuery{Path: rest[0], Limit: *limit, Cursor: *cursor}
	}
	h, err := git.PageHistory(ctx, st, repo, q)
	if err != nil {
		return cliError(err)
	}
	if *asJSON {
		if warnings == nil {
			warnings = []string{}
		}
		b, _ := json.MarshalIndent(historyJSON{History: h, Warnings: warnings}, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, "llmwiki:", w)
	}
	if len(h.Versions) == 0 {
		if h.Kind == git.HistoryGit {
			fmt.Fprintf(e.stdout, "%s has no commits yet.\n", h.Path)
		} else {
			fmt.Fprintf(e.stdout, "%s has no versions.\n", h.Path)
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	if h.Kind == git.HistoryGit {
		fmt.Fprintln(tw, "WRITTEN (UTC)\tCOMMIT\tAUTHOR\tCLIENT\t+/-\tMESSAGE")
		for _, v := range h.Versions {
			msg := v.Message
			if v.Path != h.Path {
				msg += "  [" + v.Path + "]"
			}
			if v.Deleted {
				msg += "  (deleted)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t+%d -%d\t%s\n", v.Written.Format("2006-01-02 15:04"), v.Commit[:min(7, len(v.Commit))], v.Author, v.Client, v.Added, v.Removed, msg)
		}
	} else {
		fmt.Fprintln(tw, "WRITTEN (UTC)\t+/-\tSHA256\tVERSION")
		for _, v := range h.Versions {
			when, which := "", v.Snapshot
			if !v.Written.IsZero() {
				when = v.Written.Format("2006-01-02 15:04")
			}
			if v.Current {
				which = "current (" + v.Path + ")"
			}
			sum := v.SHA256
			if len(sum) > 16 {
				sum = sum[:16]
			}
			fmt.Fprintf(tw, "%s\t+%d -%d\t%s\t%s\n", when, v.Added, v.Removed, sum, which)
		}
	}
	tw.Flush()
	if h.NextCursor != "" {
		fmt.Fprintf(e.stdout, "More: llmwiki history %s --cursor %s\n", rest[0], h.NextCursor)
	}
	if h.Kind == git.HistoryGit {
		fmt.Fprintln(e.stdout, "Show a version with git show COMMIT; bring one back with restore_snapshot (commit) from your editor.")
	} else {
		fmt.Fprintf(e.stdout, "Bring a version back with: llmwiki snapshots restore %s SNAPSHOT\n", h.Path)
	}
	return nil
}
