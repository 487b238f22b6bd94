package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// The end-to-end tests of review by a person: the built binary served over
// stdio to the official TypeScript SDK client (testdata/e2e/review_flow.mjs),
// which answers elicitation/create as the person would, and the
// `llmwiki review` command line the person decides with.

// reviewStep is one tool call of review_flow.mjs.
type reviewStep struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// reviewFlowOut is what review_flow.mjs prints.
type reviewFlowOut struct {
	Elicitations []struct {
		Message         string `json:"message"`
		RequestedSchema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type    string `json:"type"`
				Title   string `json:"title"`
				Default *bool  `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	} `json:"elicitations"`
	Results []reviewResult `json:"results"`
}

type reviewResult struct {
	Tool       string         `json:"tool"`
	IsError    bool           `json:"is_error"`
	Text       string         `json:"text"`
	Structured map[string]any `json:"structured"`
}

// reviewOf returns the result's review status ({change_set, id, status,
// message}), failing when it has none.
func (r reviewResult) reviewOf(t *testing.T) (n int, status, message string) {
	t.Helper()
	rv, ok := r.Structured["review"].(map[string]any)
	if !ok {
		t.Fatalf("%s result has no review: %s %v", r.Tool, r.Text, r.Structured)
	}
	f, _ := rv["change_set"].(float64)
	status, _ = rv["status"].(string)
	message, _ = rv["message"].(string)
	return int(f), status, message
}

// reviewWiki creates a wiki in review mode mode with the given pages
// (slug → body) written before any client connects, in mode off so they
// are neither pending nor unreviewed.
func reviewWiki(t *testing.T, mode string, pages map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	setReviewMode(t, root, "off")
	for slug, body := range pages {
		p := filepath.Join(root, "pages", slug+".md")
		if err := os.WriteFile(p, []byte("---\ntitle: "+slug+"\nsummary: about "+slug+"\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setReviewMode(t, root, mode)
	return root
}

// setReviewMode sets schema.md's review: key.
func setReviewMode(t *testing.T, root, mode string) {
	t.Helper()
	p := filepath.Join(root, "schema.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []string
	for i, l := range lines {
		if strings.HasPrefix(l, "review:") {
			continue
		}
		out = append(out, l)
		if i == 0 && l == "---" {
			out = append(out, "review: "+mode)
		}
	}
	if lines[0] != "---" {
		t.Fatalf("schema.md has no frontmatter:\n%s", b)
	}
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewFlow runs steps on one stdio connection whose person answers as
// person says (see review_flow.mjs).
func reviewFlow(t *testing.T, root, person string, steps ...reviewStep) reviewFlowOut {
	t.Helper()
	bin := binary(t)
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	sf := filepath.Join(t.TempDir(), "steps.json")
	if err := os.WriteFile(sf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := node(t, "review_flow.mjs", "--bin", bin, "--root", root, "--steps", sf, "--person", person)
	var r reviewFlowOut
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("review_flow output: %v\n%s", err, out)
	}
	if len(r.Results) != len(steps) {
		t.Fatalf("%d results for %d steps", len(r.Results), len(steps))
	}
	return r
}

// reviewCLI runs the built `llmwiki review ARGS --root root` and returns
// its stdout, stderr and exit status.
func reviewCLI(t *testing.T, root string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"review", "--root", root}, args...)...)
	cmd.Env = append(os.Environ(), "LLMWIKI_LOG=warn", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("llmwiki review: %v", err)
	}
	return out.String(), errb.String(), code
}

// treeSums returns the sha256 of every file under root except .llmwiki/
// (the server's own state: plans, audit, snapshots).
func treeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".llmwiki" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		sums[rel] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// fileSHA is the sha256 of root/rel, as base_sha256 takes it.
func fileSHA(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readRel(t *testing.T, root, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// auditWith returns the audit lines whose Extra has key = value.
func auditWith(t *testing.T, root, key string, value any) []store.AuditRecord {
	t.Helper()
	var out []store.AuditRecord
	for _, r := range teststore.AuditLines(t, root) {
		if v, ok := r.Extra[key]; ok && v == value {
			out = append(out, r)
		}
	}
	return out
}

func writeStep(slug, title, content string) reviewStep {
	return reviewStep{Tool: "write_page", Arguments: map[string]any{"slug": slug, "title": title, "summary": "About " + title + ".", "content": content}}
}

// threeActions is a change set of three new pages.
func threeActions() reviewStep {
	var actions []map[string]any
	for _, s := range []string{"alpha", "beta", "gamma"} {
		w := writeStep(s, strings.ToUpper(s[:1])+s[1:], "## Notes\n\nAbout "+s+".\n")
		actions = append(actions, map[string]any{"tool": w.Tool, "arguments": w.Arguments, "why": "a page for " + s})
	}
	return reviewStep{Tool: "propose_changes", Arguments: map[string]any{
		"takeaways": []string{"Three subjects deserve a page each."},
		"actions":   actions,
	}}
}

// TestReviewElicitationTicksTwoOfThree: a client declaring elicitation
// proposes a three-action change set; it is asked exactly once, with one
// boolean per action, ticked by default; accepting with actions 1 and 3
// ticked writes exactly those two pages.
func TestReviewElicitationTicksTwoOfThree(t *testing.T) {
	root := reviewWiki(t, "after", nil)
	out := reviewFlow(t, root, "accept:1,3", threeActions())
	if len(out.Elicitations) != 1 {
		t.Fatalf("%d elicitations, want 1", len(out.Elicitations))
	}
	e := out.Elicitations[0]
	if e.RequestedSchema.Type != "object" || len(e.RequestedSchema.Properties) != 3 {
		t.Fatalf("requested schema %+v", e.RequestedSchema)
	}
	for _, key := range []string{"action_1", "action_2", "action_3"} {
		p, ok := e.RequestedSchema.Properties[key]
		if !ok || p.Type != "boolean" || p.Default == nil || !*p.Default {
			t.Errorf("%s: %+v, want a boolean defaulting to true", key, p)
		}
	}
	for _, want := range []string{"Three subjects deserve a page each.", "pages/alpha.md", "pages/beta.md", "pages/gamma.md"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, e.Message)
		}
	}
	r := out.Results[0]
	if r.IsError {
		t.Fatalf("propose_changes: %s", r.Text)
	}
	n, status, _ := r.reviewOf(t)
	if status != "applied" || n < 1 {
		t.Errorf("review #%d %s, want applied", n, status)
	}
	for slug, want := range map[string]bool{"alpha": true, "beta": false, "gamma": true} {
		got, ok := readRel(t, root, "pages/"+slug+".md")
		if ok != want {
			t.Errorf("pages/%s.md exists %v, want %v", slug, ok, want)
			continue
		}
		if want && (!strings.Contains(got, "title: "+strings.ToUpper(slug[:1])+slug[1:]) || !strings.HasSuffix(got, "## Notes\n\nAbout "+slug+".\n")) {
			t.Errorf("pages/%s.md:\n%s", slug, got)
		}
	}
	approved := auditWith(t, root, "decision", "approved")
	if len(approved) != 1 || approved[0].Extra["reviewer"] != "elicitation" {
		t.Fatalf("approval audit lines %+v", approved)
	}
	var wrote []string
	for _, w := range approved[0].Writes {
		wrote = append(wrote, w.Path)
	}
	if strings.Contains(strings.Join(wrote, " "), "beta") || !strings.Contains(strings.Join(wrote, " "), "pages/alpha.md") || !strings.Contains(strings.Join(wrote, " "), "pages/gamma.md") {
		t.Errorf("approval wrote %v", wrote)
	}
}
