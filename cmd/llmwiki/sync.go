package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
)

// runSync commits the edits made outside llmwiki, fetches the remote,
// rebases the wiki's commits on it by the wiki's conflict rules and, with
// --push, pushes (schema.md git: sync).
func runSync(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "sync", "sync [--root DIR] [--push] [--json]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki); it must exist")
	push := fs.Bool("push", false, "push the local commits to the remote after the rebase")
	asJSON := fs.Bool("json", false, "print what the sync did as one JSON object")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("sync takes no arguments (got %q); use --root DIR", fs.Arg(0))
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	if mode := st.Settings().Git; mode != wiki.GitSync {
		return fmt.Errorf("sync: schema.md has git: %s; set git: sync in schema.md's settings to keep the wiki in step with a remote", mode)
	}
	repo, err := git.Open(ctx, st)
	if err != nil {
		return fmt.Errorf("sync: %s", cliMessage(err))
	}
	res, err := repo.Sync(ctx, git.SyncOptions{Push: *push, OutsideEdits: true, Tool: "cli:sync"})
	if err != nil {
		return fmt.Errorf("sync: %s", cliMessage(err))
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printSync(e, res, *push)
	return nil
}

// printSync says what a sync did, one fact a line.
func printSync(e env, res git.SyncResult, push bool) {
	w := e.stdout
	if n := len(res.OutsideEdits); n > 0 {
		fmt.Fprintf(w, "committed %s edited outside llmwiki: %s\n", english.Count(n, "file"), strings.Join(res.OutsideEdits, ", "))
	}
	switch {
	case res.Fetched == 0:
		fmt.Fprintf(w, "%s has nothing new\n", res.Remote)
	case res.Replayed == 0:
		fmt.Fprintf(w, "brought in %s from %s\n", english.Count(res.Fetched, "commit"), res.Remote)
	default:
		fmt.Fprintf(w, "brought in %s from %s and replayed %s on them\n", english.Count(res.Fetched, "commit"), res.Remote, english.Count(res.Replayed, "local commit"))
	}
	if n := len(res.Changed); n > 0 {
		fmt.Fprintf(w, "%s changed on disk\n", english.Count(n, "file"))
	}
	for _, m := range res.Merged {
		fmt.Fprintf(w, "merged: %s (changed on both sides, combined)\n", m)
	}
	for _, rn := range res.Renamed {
		fmt.Fprintf(w, "source kept twice: %s is the remote's, yours is now %s\n", rn.Path, rn.Local)
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(w, "conflict: %s\n", c.Summary)
		if c.Snapshot != "" {
			fmt.Fprintf(w, "  your version: %s (llmwiki snapshots restore %s)\n", c.Snapshot, c.Snapshot)
		}
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	switch {
	case push && res.Pushed > 0:
		fmt.Fprintf(w, "pushed %s to %s\n", english.Count(res.Pushed, "commit"), res.Remote)
	case res.Ahead > 0:
		fmt.Fprintf(w, "%s not pushed yet; run llmwiki sync --push\n", english.Count(res.Ahead, "commit"))
	}
	fmt.Fprintf(w, "at %s\n", res.Head)
}
