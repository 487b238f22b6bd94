package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestRunWrite runs change-set actions as their tools would: a dry run
// checks everything and writes nothing, a real run writes and returns the
// tool's own output, and bad calls are refused as the handler refuses them.
func TestRunWrite(t *testing.T) {
	st, dir := teststore.New(t, nil, wiki.WithLogger(teststore.Quiet()))
	d := Deps{Store: st, Log: teststore.Quiet(), Links: links.Open(st)}
	st.AddDerived(d.Links)
	run := RunWrite(d)
	call := store.NewCall("test", st.SessionID(), nil)
	ctx := store.WithCall(context.Background(), call)
	args := json.RawMessage(`{"title":"Alpha","content":"Alpha is the first letter.\n"}`)

	dctx, dry := store.WithDryRun(ctx)
	if _, err := run(dctx, "write_page", args); !errors.Is(err, store.ErrDryRun) {
		t.Fatalf("dry run: err = %v, want ErrDryRun", err)
	}
	if ch := dry.Changes(); len(ch) == 0 || ch[0].Path != "pages/alpha.md" || ch[0].Existed {
		t.Fatalf("dry run staged %+v, want pages/alpha.md created", ch)
	}
	if _, err := os.Stat(filepath.Join(dir, "pages", "alpha.md")); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote pages/alpha.md (stat err %v)", err)
	}

	out, err := run(ctx, "write_page", args)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := out.(WritePageOutput)
	if !ok || w.Path != "pages/alpha.md" || len(w.SHA256) != 64 {
		t.Fatalf("output = %#v, want a WritePageOutput for pages/alpha.md", out)
	}
	if rec := call.Record(); len(rec.Writes) == 0 || rec.Writes[0].Path != "pages/alpha.md" {
		t.Fatalf("the ctx's call recorded writes %+v, want pages/alpha.md", rec.Writes)
	}

	for _, c := range []struct {
		name, tool, args, want string
		code                   store.Code
	}{
		{"unknown tool", "append_log", `{"op":"note","title":"x"}`, "cannot be an action of a change set", store.CodeInvalid},
		{"read-only tool", "read_page", `{"page":"alpha"}`, "cannot be an action of a change set", store.CodeInvalid},
		{"renamed argument", "write_page", `{"title":"B","body":"x"}`, "unknown argument 'body'; use 'content'", store.CodeInvalid},
		{"missing argument", "write_page", `{"title":"B"}`, "missing required argument 'content'", store.CodeInvalid},
		{"stale base", "write_page", `{"title":"Alpha","content":"x","base_sha256":"` + strings.Repeat("0", 64) + `"}`, "", store.CodeConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(ctx, c.tool, json.RawMessage(c.args))
			if store.CodeOf(err) != c.code || !strings.Contains(store.PublicMessage(err), c.want) {
				t.Fatalf("err = %v (code %s), want code %s containing %q", err, store.CodeOf(err), c.code, c.want)
			}
		})
	}
}
