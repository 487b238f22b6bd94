package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// runSearch is `llmwiki search "query"`: the search_wiki engine on the
// command line, over an existing wiki (it never creates one). While the
// index is first built it answers as search_wiki does (from the first pass
// over titles, headings and file names, the state said), unless --wait
// asks it to wait for the whole build (saying so on stderr). The query is literal text:
// any argument that is not one of the command's flags is a query word, so
// `llmwiki search --dry-run` searches for "--dry-run"; after "--" every
// argument is a query word (`llmwiki search -- --json`).
func runSearch(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "search", `search "query" [--scope pages|sources|context|all] [--match best|all|any|phrase] [--limit N] [--cursor C] [--json] [--wait] [--root DIR]

The query is literal text: arguments that are not the flags below are query
words, wherever they stand (llmwiki search --dry-run finds "--dry-run"); every
argument after -- is a query word (llmwiki search -- --json). The wiki must
exist (llmwiki init creates one).`)
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	scope := fs.String("scope", "pages", "pages, sources, context or all")
	match := fs.String("match", "best", "best, all, any or phrase")
	limit := fs.Int("limit", search.DefaultLimit, "most hits to print (at most 50)")
	cursor := fs.String("cursor", "", "continue where the previous search stopped (its next_cursor)")
	tag := fs.String("tag", "", "only files with this tag")
	prefix := fs.String("prefix", "", "only files whose path starts with this")
	lang := fs.String("lang", "", "only files in this language")
	asJSON := fs.Bool("json", false, "print the result as JSON (the search_wiki tool's output)")
	wait := fs.Bool("wait", false, "on a wiki whose index is being built, wait for the build instead of answering from titles, headings and file names")
	words, err := splitSearchArgs(fs, args)
	if err != nil {
		return err
	}
	offset, err := tools.CursorOffset(*cursor)
	if err != nil {
		return fmt.Errorf("%s", store.PublicMessage(err))
	}
	if len(words) == 0 {
		fs.Usage()
		return fmt.Errorf("search needs a query, like: llmwiki search \"graph view colours\"")
	}
	log := newCommandLogger(e)
	dir, err := resolveRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	st, err := openExisting(e, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	idx := app.New(st, app.Options{Log: log}).Search
	idx.Start()
	waitStart := time.Now()
	for *wait {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_ = idx.Wait(wctx)
		cancel()
		s := idx.Status()
		if s.State != search.StateBuilding || ctx.Err() != nil {
			break
		}
		fmt.Fprintf(e.stderr, "llmwiki: %s (%.0fs)\n", s.Reason, time.Since(waitStart).Seconds())
	}
	res, err := idx.Search(ctx, search.Query{
		Text: strings.Join(words, " "), Scope: *scope, Match: *match, Limit: *limit, Offset: offset,
		Tag: *tag, Prefix: *prefix, Lang: *lang,
	})
	if err != nil {
		return fmt.Errorf("%s", store.PublicMessage(err))
	}
	if res.Index.State == search.StateBuilding {
		fmt.Fprintf(e.stderr, "llmwiki: %s; llmwiki search --wait waits for the whole index (a running llmwiki serve builds it too)\n", res.Index.Reason)
	} else if st.ReadOnly() && res.Index.Reason != "" {
		fmt.Fprintf(e.stderr, "llmwiki: %s\n", res.Index.Reason)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(tools.SearchWikiOutput{Result: res, NextCursor: tools.NextCursor(res.NextOffset)})
	}
	printResult(e, res, offset)
	return nil
}

// splitSearchArgs separates the command's flags from the query words: an
// argument is a flag only when it names one of fs's flags ("--json",
// "-limit=5", "--scope sources"); anything else, "--dry-run" included, is
// a query word, and every argument after "--" is one. "-h" and "--help"
// print the usage (flag.ErrHelp).
func splitSearchArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(words, args[i+1:]...), nil
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "-" || strings.HasPrefix(a, "---") {
			words = append(words, a)
			continue
		}
		if name == "h" || name == "help" {
			fs.Usage()
			return nil, flag.ErrHelp
		}
		f := fs.Lookup(name)
		if f == nil {
			words = append(words, a)
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && !hasValue {
			value = "true"
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, fmt.Errorf("invalid value %q for flag --%s: %v", value, name, err)
		}
	}
	return words, nil
}

// noWiki says why dir is not a wiki (it has no schema.md as a regular file),
// or returns nil. Every command but init and serve refuses such a folder, so
// a mistyped --root is an error that says so, never a new wiki.
func noWiki(dir string) error {
	if fi, err := os.Stat(filepath.Join(dir, "schema.md")); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("no wiki at %s (it has no schema.md); check --root or $LLMWIKI_ROOT, or create one with: llmwiki init %s", dir, dir)
	}
	return nil
}

// openExisting opens the wiki at dir, which must hold one (see noWiki).
func openExisting(e env, dir string) (*wiki.Store, error) {
	return openExistingLog(dir, newCommandLogger(e))
}

func openExistingLog(dir string, log *slog.Logger) (*wiki.Store, error) {
	if err := noWiki(dir); err != nil {
		return nil, err
	}
	st, err := wiki.Open(dir, wiki.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("open wiki at %s: %s", dir, store.PublicMessage(err))
	}
	return st, nil
}

// openExistingRoot resolves the wiki root like openRoot but refuses a
// folder that holds no wiki instead of creating one.
func openExistingRoot(e env, rootFlag string) (*wiki.Store, string, error) {
	dir, err := resolveRoot(e, rootFlag)
	if err != nil {
		return nil, "", err
	}
	st, err := openExistingLog(dir, newLogger(e))
	return st, dir, err
}

func printResult(e env, res search.Result, offset int) {
	w := e.stdout
	for _, n := range res.QueryNotes {
		if strings.HasPrefix(n, "the index is "+res.Index.State+": ") {
			continue // the index line below says it
		}
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if res.Index.State != search.StateReady {
		fmt.Fprintf(w, "index: %s (%s)\n", res.Index.State, res.Index.Reason)
	}
	if len(res.Hits) == 0 {
		indexed := fmt.Sprintf("%d pages", res.Index.Pages)
		if res.Index.Pages == 1 {
			indexed = "1 page"
		}
		fmt.Fprintf(w, "no matches for %q in %s (%s indexed)\n", res.Query, res.Scope, indexed)
		if res.Note != "" {
			// The note names the tool argument; the command's flag is --scope.
			fmt.Fprintf(w, "note: %s\n", strings.Replace(res.Note, "scope: sources", "--scope sources", 1))
		}
		return
	}
	for i, h := range res.Hits {
		loc := h.Path
		if h.Line > 0 {
			loc = fmt.Sprintf("%s:%d", h.Path, h.Line)
		}
		fmt.Fprintf(w, "%d. %s  (%s, score %.3f)\n", offset+i+1, h.Title, loc, h.Score)
		if h.Heading != "" {
			fmt.Fprintf(w, "   § %s\n", h.Heading)
		}
		if h.Snippet != "" {
			fmt.Fprintf(w, "   %s\n", h.Snippet)
		}
	}
	more := ""
	if res.NextOffset > 0 {
		more = "; more with --cursor " + tools.NextCursor(res.NextOffset)
	}
	fmt.Fprintf(w, "%d of %d matching files%s\n", len(res.Hits), res.Total, more)
}
