package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/search"
)

// runSearch is `llmwiki search "query"`: the search_wiki engine on the
// command line. It waits for the index to be built (saying so on stderr).
func runSearch(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "search", `search "query" [--scope pages|sources|context|all] [--match best|all|any|phrase] [--limit N] [--json] [--root DIR]`)
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	scope := fs.String("scope", "pages", "pages, sources, context or all")
	match := fs.String("match", "best", "best, all, any or phrase")
	limit := fs.Int("limit", search.DefaultLimit, "most hits to print (at most 50)")
	offset := fs.Int("offset", 0, "hits to skip")
	tag := fs.String("tag", "", "only files with this tag")
	prefix := fs.String("prefix", "", "only files whose path starts with this")
	lang := fs.String("lang", "", "only files in this language")
	asJSON := fs.Bool("json", false, "print the result as JSON (the search_wiki tool's output)")
	// Flags may come after the query: parse, take the words, parse the rest.
	var words []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(words) == 0 {
		fs.Usage()
		return fmt.Errorf("search needs a query, like: llmwiki search \"graph view colours\"")
	}
	log := newLogger(e)
	dir, err := resolveRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	st, err := openOrCreate(e, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	deps, err := newDeps(e, st, log, nil)
	if err != nil {
		return err
	}
	idx := deps.Search
	waitStart := time.Now()
	for {
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
		Text: strings.Join(words, " "), Scope: *scope, Match: *match, Limit: *limit, Offset: *offset,
		Tag: *tag, Prefix: *prefix, Lang: *lang,
	})
	if err != nil {
		return fmt.Errorf("%s", wiki.PublicMessage(err))
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printResult(e, res, *offset)
	return nil
}

func printResult(e env, res search.Result, offset int) {
	w := e.stdout
	for _, n := range res.QueryNotes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if res.Index.State != search.StateReady {
		fmt.Fprintf(w, "index: %s (%s)\n", res.Index.State, res.Index.Reason)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(w, "no matches for %q in %s (%d files indexed)\n", res.Query, res.Scope, res.Index.Pages)
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
		more = fmt.Sprintf("; more with --offset %d", res.NextOffset)
	}
	fmt.Fprintf(w, "%d of %d matching files%s\n", len(res.Hits), res.Total, more)
}
