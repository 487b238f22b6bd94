package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"text/tabwriter"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// runSnapshots lists, restores and prunes the stored versions of pages,
// context.md and guidelines.md.
func runSnapshots(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "snapshots", "snapshots [--root DIR] list [PATH] | restore PATH [SNAPSHOT] | restore SNAPSHOT-PATH | prune [--dry-run]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	asJSON := fs.Bool("json", false, "list, prune: print JSON")
	dryRun := fs.Bool("dry-run", false, "prune: say what the retention would delete, delete nothing")
	limit := fs.Int("n", 20, "list PATH: most versions to show, newest first (0: all)")
	rest, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	sub := "list"
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	if sub != "list" {
		// The review's hooks: a restore respects the files pending change
		// sets hold, and the retention keeps what unreviewed writes need.
		app.New(st, app.Options{NoSearch: true})
	}
	switch sub {
	case "list":
		return snapshotsList(e, st, rest, *asJSON, *limit)
	case "restore":
		if len(rest) < 1 || len(rest) > 2 {
			return fmt.Errorf("snapshots restore takes PATH [SNAPSHOT], or one snapshot path")
		}
		in := wiki.RestoreInput{Path: rest[0]}
		if len(rest) == 2 {
			in.Snapshot = rest[1]
		} else if _, ok := snapshotPath(rest[0]); ok {
			in = wiki.RestoreInput{Snapshot: rest[0]}
		}
		call := store.NewCall("cli:snapshots-restore", st.SessionID(), map[string]any{"path": in.Path, "snapshot": in.Snapshot})
		ctx = store.WithCall(ctx, call)
		// The restore and its log entry are one commit.
		ctx, commit := st.OneCommit(ctx)
		res, err := st.RestoreSnapshot(ctx, in)
		if err == nil && res.Changed {
			_, lerr := st.AppendLog(ctx, wiki.LogInput{Op: "restore", Title: "Restored " + res.Path + " from " + path.Base(res.Restored), Details: "Restored with llmwiki snapshots restore. The version it replaced is kept in " + res.Snapshot + "."})
			if lerr != nil {
				call.AddWarning("log.md entry not written: " + store.PublicMessage(lerr))
			}
		}
		commit()
		if aerr := st.Audit(call, err); aerr != nil {
			fmt.Fprintln(e.stderr, "llmwiki: audit line not written:", store.PublicMessage(aerr))
		}
		if err != nil {
			return cliError(err)
		}
		if !res.Changed {
			fmt.Fprintf(e.stdout, "%s already holds %s; nothing was changed.\n", res.Path, res.Restored)
			return nil
		}
		fmt.Fprintf(e.stdout, "Restored %s from %s (sha256 %s).\n", res.Path, res.Restored, res.SHA256[:16])
		if res.Snapshot != "" {
			fmt.Fprintf(e.stdout, "The version it replaced is kept in %s; restore it the same way to undo.\n", res.Snapshot)
		}
		return nil
	case "prune":
		if len(rest) > 0 {
			return fmt.Errorf("snapshots prune takes no arguments")
		}
		call := store.NewCall("cli:snapshots-prune", st.SessionID(), map[string]any{"dry_run": *dryRun})
		res, err := st.PruneSnapshots(store.WithCall(ctx, call), *dryRun)
		if aerr := st.Audit(call, err); aerr != nil {
			fmt.Fprintln(e.stderr, "llmwiki: audit line not written:", store.PublicMessage(aerr))
		}
		if err != nil {
			return cliError(err)
		}
		if *asJSON {
			b, _ := json.MarshalIndent(res, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return nil
		}
		verb := "Deleted"
		if *dryRun {
			verb = "Would delete"
		}
		fmt.Fprintf(e.stdout, "Retention: %s.\n%s %d snapshot(s); kept %d (%d only because they are the last copy of a version still referenced).\n", res.Retention, verb, len(res.Deleted), res.Kept, res.KeptReferenced)
		for _, d := range res.Deleted {
			fmt.Fprintf(e.stdout, "  %s\n", d.Path)
		}
		return nil
	}
	return fmt.Errorf("unknown snapshots subcommand %q; use list, restore or prune", sub)
}

func snapshotPath(s string) (string, bool) {
	if len(s) > len(store.SnapshotDir)+1 && s[:len(store.SnapshotDir)+1] == store.SnapshotDir+"/" {
		return s, true
	}
	return "", false
}

func snapshotsList(e env, st *wiki.Store, rest []string, asJSON bool, limit int) error {
	if len(rest) > 1 {
		return fmt.Errorf("snapshots list takes at most one path")
	}
	if len(rest) == 0 {
		all, err := st.AllSnapshots()
		if err != nil {
			return cliError(err)
		}
		if asJSON {
			b, _ := json.MarshalIndent(all, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return nil
		}
		if len(all) == 0 {
			fmt.Fprintln(e.stdout, "No snapshots yet: a version is stored each time a page, context.md or guidelines.md is replaced.")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FILE\tVERSIONS\tNEWEST")
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j].Path == all[i].Path {
				j++
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\n", all[i].Path, j-i, all[i].Replaced.Format("2006-01-02 15:04:05"))
			i = j
		}
		tw.Flush()
		fmt.Fprintf(e.stdout, "Retention: %s. llmwiki snapshots list FILE shows a file's versions.\n", st.Settings().Retention)
		return nil
	}
	rel, list, err := st.SnapshotsOf(rest[0])
	if err != nil {
		return cliError(err)
	}
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	if asJSON {
		b, _ := json.MarshalIndent(list, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintf(e.stdout, "%s has no stored versions.\n", rel)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPLACED (UTC)\tSIZE\tSHA256\tSNAPSHOT")
	for _, sn := range list {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", sn.Replaced.Format("2006-01-02 15:04:05"), sn.Size, sn.SHA256Prefix, sn.Snapshot)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "Restore one with: llmwiki snapshots restore %s SNAPSHOT (the current version is kept first).\n", rel)
	return nil
}
