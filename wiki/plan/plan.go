package plan

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/internal/schemacheck"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Limits of a proposal. The schema states the same numbers; [Check] and the
// executors enforce them again.
const (
	MaxActions      = 20
	MaxPageChars    = 100_000 // markdown of create_page, update_page, update_context
	MaxSectionChars = 20_000  // markdown of append_page_section, append_context_section
	MaxLinks        = 10      // links of one add_links
	// TTL is how long a plan can be approved after it was proposed.
	TTL = 10 * time.Minute
)

// The action kinds: the whole vocabulary.
const (
	KindCreatePage           = "create_page"
	KindUpdatePage           = "update_page"
	KindAppendPageSection    = "append_page_section"
	KindAddLinks             = "add_links"
	KindUpdateContext        = "update_context"
	KindAppendContextSection = "append_context_section"
)

// Kinds lists the action kinds in the order the schema gives them.
var Kinds = []string{KindCreatePage, KindUpdatePage, KindAppendPageSection, KindAddLinks, KindUpdateContext, KindAppendContextSection}

//go:embed schema.json
var schemaJSON []byte

// Schema returns the JSON schema of a [Proposal] (draft 2020-12).
func Schema() json.RawMessage { return append(json.RawMessage(nil), schemaJSON...) }

// schema is the compiled plan schema, compiled on first use (not at
// start-up: a server that is only asked for its tool list never needs it).
var schema = sync.OnceValue(func() *jsonschema.Schema { return mustCompile("mem://plan.json", schemaJSON) })

func mustCompile(url string, doc []byte) *jsonschema.Schema {
	sch, err := schemacheck.Compile(url, doc)
	if err != nil {
		panic(url + ": " + err.Error())
	}
	return sch
}

// Action is one step of a plan. Which fields apply depends on Kind (see
// schema.json); the others are empty.
type Action struct {
	Kind string `json:"kind"`
	// Slug names the page (create_page, update_page, append_page_section,
	// add_links).
	Slug string `json:"slug,omitempty"`
	// Title, Summary and Tags are the page's frontmatter (create_page;
	// optional on update_page, where empty keeps the old value).
	Title   string   `json:"title,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	// BaseSHA256 is the sha256 of the page version the model was shown
	// (update_page).
	BaseSHA256 string `json:"base_sha256,omitempty"`
	// Heading names the section appended to (without "## "); a missing
	// section is created at the end of the page (append_page_section) or of
	// context.md (append_context_section).
	Heading string `json:"heading,omitempty"`
	// Markdown is the page body, section body or context.md body.
	Markdown string `json:"markdown,omitempty"`
	// Links are slugs of pages to link from the page's "## Related" section.
	Links []string `json:"links,omitempty"`
	// Why is one line for the person.
	Why string `json:"why,omitempty"`

	// Tool and Arguments are the action of a change set (Kind
	// [KindCall]): a call of one of the direct write tools (write_page,
	// edit_page, move_page, atomic_write_context, ...) with that tool's own
	// arguments, base hashes included, run through that tool's executor
	// when a person approves it.
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Files are what a change-set action would write, from its dry run at
	// proposal time: the person sees them, and an approval refuses the
	// action when one of them changed since (its sha256 differs from
	// Before).
	Files []FileChange `json:"files,omitempty"`
}

// KindCall is the kind of a change-set action: a write tool's call held for
// a person (see [Action.Tool]). It is not in the model's vocabulary
// ([Kinds]); only change sets carry it.
const KindCall = "call"

// FileChange is one file a change-set action writes.
type FileChange struct {
	Path string `json:"path"`
	// Change is "created", "updated" or "deleted".
	Change string `json:"change"`
	// Before and After are the file's sha256 ("" when absent).
	Before string `json:"sha256_before,omitempty"`
	After  string `json:"sha256_after,omitempty"`
	// Added and Removed count the lines of the diff.
	Added   int `json:"lines_added"`
	Removed int `json:"lines_removed"`
}

// Target names what the action writes: "pages/<slug>.md" or "context.md".
func (a Action) Target() string {
	switch a.Kind {
	case KindUpdateContext, KindAppendContextSection:
		return "context.md"
	}
	return wiki.PagePath(a.Slug)
}

// Describe is the one-line checklist entry of the action.
func (a Action) Describe() string {
	var s string
	switch a.Kind {
	case KindCreatePage:
		s = fmt.Sprintf("create page %s %q (%d chars)", a.Target(), a.Title, chars(a.Markdown))
	case KindUpdatePage:
		s = fmt.Sprintf("rewrite page %s (%d chars)", a.Target(), chars(a.Markdown))
	case KindAppendPageSection:
		s = fmt.Sprintf("append to section %q of %s (%d chars)", a.Heading, a.Target(), chars(a.Markdown))
	case KindAddLinks:
		ls := make([]string, len(a.Links))
		for i, l := range a.Links {
			ls[i] = "[[" + l + "]]"
		}
		s = fmt.Sprintf("add links %s to %s", strings.Join(ls, " "), a.Target())
	case KindUpdateContext:
		s = fmt.Sprintf("replace context.md (%d lines)", lines(a.Markdown))
	case KindAppendContextSection:
		s = fmt.Sprintf("append section %q to context.md (%d lines)", a.Heading, lines(a.Markdown))
	default:
		s = a.Kind
	}
	if a.Why != "" {
		s += " — " + a.Why
	}
	return s
}

// Proposal is the model's document: what schema.json describes.
type Proposal struct {
	Takeaways []string `json:"takeaways,omitempty"`
	Actions   []Action `json:"actions"`
}

// Parse decodes a model reply into a Proposal: exactly one JSON value that
// validates against [Schema], decoded strictly. The error (CodeInvalid) names
// each problem by its place ("actions[2].slug: ...") in words a model can act
// on; an unknown action kind rejects the whole proposal.
func Parse(reply []byte) (*Proposal, error) {
	v, err := model.DecodeJSON(reply)
	if err != nil {
		return nil, err
	}
	if err := schema().Validate(v); err != nil {
		return nil, schemaError(v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(reply))
	dec.DisallowUnknownFields()
	var p Proposal
	if err := dec.Decode(&p); err != nil {
		return nil, store.Errorf(store.CodeInvalid, "the reply does not decode as a plan: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if p.Actions == nil {
		p.Actions = []Action{}
	}
	// The schema's slug pattern cannot exclude device names ("con"); the
	// store's rules can.
	for i, a := range p.Actions {
		if a.Slug != "" {
			if err := canonicalSlug(a.Slug); err != nil {
				return nil, store.Errorf(store.CodeInvalid, "the plan does not match the schema: actions[%d].slug: %s", i, store.PublicMessage(err))
			}
		}
		for j, l := range a.Links {
			if err := canonicalSlug(l); err != nil {
				return nil, store.Errorf(store.CodeInvalid, "the plan does not match the schema: actions[%d].links[%d]: %s", i, j, store.PublicMessage(err))
			}
		}
	}
	return &p, nil
}

// schemaError turns a validation error into at most six lines, leaves only.
func schemaError(doc any, err error) error {
	vs, ok := schemacheck.Violations(err)
	if !ok {
		return store.Errorf(store.CodeInvalid, "the reply does not match the plan schema")
	}
	seen := map[string]bool{}
	var msgs []string
	for _, v := range vs {
		m := describeViolation(doc, v)
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	sort.Strings(msgs)
	more := ""
	if len(msgs) > 6 {
		more = fmt.Sprintf("; and %d more", len(msgs)-6)
		msgs = msgs[:6]
	}
	return store.Errorf(store.CodeInvalid, "the plan does not match the schema: %s%s", strings.Join(msgs, "; "), more)
}

func describeViolation(doc any, v schemacheck.Violation) string {
	loc := schemacheck.Path(v.Instance)
	kw := v.Keyword
	m := v.Message
	switch {
	case strings.HasSuffix(kw, "/actions/items/$ref/properties/kind/enum"):
		return fmt.Sprintf("%s is %s, which is not an action; the only kinds are %s", loc, quoteValue(doc, v.Instance), strings.Join(Kinds, ", "))
	case strings.Contains(kw, "/slug/") && strings.HasSuffix(kw, "/pattern") || strings.Contains(kw, "/links/items/") && strings.HasSuffix(kw, "/pattern"):
		return fmt.Sprintf("%s is %s, which is not a slug: use lowercase words joined by '-' like \"electron-ipc\" (no folders, dots, '.md' or paths; files under sources/ and other non-page files cannot be written)", loc, quoteValue(doc, v.Instance))
	case strings.HasSuffix(kw, "/base_sha256/pattern"):
		return fmt.Sprintf("%s must be the 64-hex-digit sha256 shown with the page", loc)
	case strings.HasSuffix(kw, "/additionalProperties") && strings.Contains(kw, "/actions/"):
		return fmt.Sprintf("%s: %s (each action kind takes only its own fields)", loc, m)
	case strings.HasSuffix(kw, "/actions/maxItems"):
		return fmt.Sprintf("the plan has more than %d actions; propose the %d most important", MaxActions, MaxActions)
	case strings.HasSuffix(kw, "/maxLength") && strings.Contains(kw, "markdown"):
		return fmt.Sprintf("%s is too long: %s (count in characters)", loc, m)
	}
	if loc == "" {
		return m
	}
	return loc + ": " + m
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// quoteValue returns the JSON of the value at ptr in doc, shortened.
func quoteValue(doc any, ptr string) string {
	v := doc
	for _, p := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if p == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		}
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func chars(s string) int { return len([]rune(s)) }

func lines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
