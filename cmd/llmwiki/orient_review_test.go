package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/review"
)

// TestOrientListsPendingChangeSets: a session's orientation names the
// review mode and the change sets awaiting the person.
func TestOrientListsPendingChangeSets(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	if err := os.WriteFile(filepath.Join(root, "schema.md"), []byte("---\nreview: before\n---\n# Schema\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(st, app.Options{NoSearch: true})
	args, _ := json.Marshal(map[string]any{"title": "Delta", "content": "Delta is the fourth letter.\n"})
	if _, err := a.Review.Propose(context.Background(), review.ProposeInput{Actions: []review.ActionInput{{Tool: "write_page", Arguments: args}}, Client: "claude-code 2"}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	st.Close()
	out, _, err := runIn(t, "", nil, "orient", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Review mode: before (nothing under pages/ or context.md changes until the person approves", "Awaiting review: change set #1 (1 action, from claude-code 2, expires "} {
		if !strings.Contains(out, want) {
			t.Errorf("orientation lacks %q:\n%s", want, out)
		}
	}
}
