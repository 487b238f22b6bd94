package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func runIngest(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "ingest", "ingest [--root DIR] [--as sources/NAME.md] [--note TEXT] [--yes | --select 1,3] [model flags] FILE|-")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	as := fs.String("as", "", "where to save the source under sources/ (default sources/<file name>; stdin: sources/stdin-<time>.md)")
	note := fs.String("note", "", "guidance for the model (\"focus on the API\")")
	yes := fs.Bool("yes", false, "apply every proposed action without asking")
	sel := fs.String("select", "", "apply only these actions (\"1,3\", \"2-4\"), without asking")
	full := fs.Bool("show", false, "print each action's markdown in the checklist")
	budget := fs.Int("budget", plan.DefaultSourceBudget, "most characters of the source shown to the model (a small local context window needs less)")
	mf := addModelFlags(fs)
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("ingest takes one file, or - for stdin")
	}
	if *yes && *sel != "" {
		return fmt.Errorf("give --yes or --select, not both")
	}
	file := pos[0]
	var data []byte
	if file == "-" {
		data, err = io.ReadAll(io.LimitReader(e.stdin, wiki.MaxSourceBytes+1))
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s is empty; nothing to ingest", file)
	}
	if len(data) > wiki.MaxSourceBytes {
		return fmt.Errorf("%s is larger than %d bytes; split it", file, wiki.MaxSourceBytes)
	}
	if mdoc.Decode(data).Binary { // text in a legacy encoding is ingested as read_page reads it
		return fmt.Errorf("%s is a binary file; ingest takes text (convert PDFs and documents to markdown first)", file)
	}
	mc, err := mf.client(e)
	if err != nil {
		return err
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	call := store.NewCall("cli:ingest", st.SessionID(), map[string]any{"file": file, "as": *as, "yes": *yes, "select": *sel})
	ctx = store.WithCall(ctx, call)
	err = ingest(ctx, e, st, app.New(st, app.Options{NoSearch: true}).Links, &plan.Proposer{Store: st, Model: mc, SourceBudget: *budget}, ingestArgs{file: file, data: data, as: *as, note: *note, yes: *yes, sel: *sel, full: *full})
	if aerr := st.Audit(call, err); aerr != nil {
		fmt.Fprintln(e.stderr, "llmwiki: audit line not written:", store.PublicMessage(aerr))
	}
	return cliError(err)
}

type ingestArgs struct {
	file     string
	data     []byte
	as, note string
	yes      bool
	sel      string
	full     bool
}

func ingest(ctx context.Context, e env, st *wiki.Store, graph *links.Graph, pr *plan.Proposer, a ingestArgs) error {
	src, reused, err := saveIngested(ctx, st, a.file, a.as, a.data)
	if err != nil {
		return err
	}
	if reused {
		fmt.Fprintf(e.stdout, "Source %s is already in the wiki (same bytes); proposing from it.\n", src)
	} else {
		fmt.Fprintf(e.stdout, "Saved the source as %s (%d bytes).\n", src, len(a.data))
	}
	fmt.Fprintf(e.stdout, "Asking %s at %s for takeaways and a plan…\n\n", pr.Model.Config().Model, pr.Model.Config().Host())
	p, err := pr.Ingest(ctx, plan.IngestInput{Source: src, Note: a.note})
	if err != nil {
		return err
	}
	return decide(ctx, e, st, graph, p, a.yes, a.sel, a.full, a.file != "-" && interactive(e))
}

// decide shows the plan, asks (or takes --yes/--select) and applies.
func decide(ctx context.Context, e env, st *wiki.Store, graph *links.Graph, p *plan.Plan, yes bool, sel string, full, canAsk bool) error {
	printPlan(e, p, st.Now(), full)
	selected, asked, err := selection(e, p, yes, sel, canAsk)
	if err != nil {
		return err
	}
	if len(p.Actions) == 0 {
		if _, err := plan.Apply(ctx, st, graph, p.ID, []int{}); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "\nNothing to apply.")
		return nil
	}
	if !asked {
		pendingHint(e, p)
		return nil
	}
	done, err := plan.Apply(ctx, st, graph, p.ID, selected)
	if done != nil && done.Status == plan.StatusDiscarded {
		fmt.Fprintf(e.stdout, "\nNothing approved; plan %s discarded and nothing written.\n", p.ID)
		return nil
	}
	if done != nil && len(done.Results) > 0 {
		fmt.Fprintln(e.stdout)
		printResults(e, done)
	}
	return err
}

// saveIngested saves the file as a new source. The same bytes already saved
// under the name are reused; other bytes under the name get "-2", "-3"….
func saveIngested(ctx context.Context, st *wiki.Store, file, as string, data []byte) (string, bool, error) {
	name := as
	if name == "" {
		if file == "-" {
			name = "stdin-" + st.Now().Format("20060102-150405") + ".md"
		} else {
			name = filepath.Base(file)
		}
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "./"), "sources/")
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= 100; i++ {
		cand := "sources/" + name
		if i > 1 {
			cand = fmt.Sprintf("sources/%s-%d%s", stem, i, ext)
		}
		rel, err := wiki.CleanPath(cand)
		if err != nil {
			return "", false, err
		}
		if cur, err := st.ReadFile(rel); err == nil {
			if bytes.Equal(cur, data) {
				return rel, true, nil
			}
			continue
		}
		w, err := st.SaveSource(ctx, wiki.SourceInput{Path: rel, Content: string(data)})
		if err != nil {
			if store.CodeOf(err) == store.CodeConflict {
				continue
			}
			return "", false, err
		}
		return w.Path, false, nil
	}
	return "", false, fmt.Errorf("sources/%s and 99 numbered variants exist; pass --as sources/OTHER.md", name)
}

// cliError turns a store error into the message for stderr (main prefixes
// "llmwiki:"), keeping exit codes.
func cliError(err error) error {
	if err == nil {
		return nil
	}
	var code exitCode
	if errors.As(err, &code) {
		return err
	}
	var we *store.Error
	if errors.As(err, &we) {
		return errors.New(store.PublicMessage(err))
	}
	return err
}
