package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/internal/quote"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Limits on submitted findings.
const (
	// MaxEvidence is the most pieces of evidence one finding may carry.
	MaxEvidence = 20
	// MaxProposals is the most findings one submission may carry.
	MaxProposals = 100
	// MaxMessage is the longest message or action, in characters.
	MaxMessage = 2000
	// MaxStoredAgentFindings is how many submitted findings are kept; the
	// oldest are dropped first.
	MaxStoredAgentFindings = 2000
)

// Quote is one piece of evidence as submitted: a file and a passage copied
// from it.
type Quote struct {
	// Path is a project-relative path ("pages/x.md", "sources/a.md",
	// "context.md") or a page's slug.
	Path string `json:"path"`
	// Quote is a verbatim passage of 8 to 300 characters.
	Quote string `json:"quote"`
}

// Proposal is a finding an agent or a model submits for verification.
type Proposal struct {
	// Kind is one of [AgentCategories]: contradiction, stale_claim,
	// unsupported_claim, gap.
	Kind string `json:"kind"`
	// Path is the page the finding is about; "" means the first evidence's
	// file.
	Path string `json:"path,omitempty"`
	// Message states the finding in one or two sentences.
	Message string `json:"message"`
	// Action is the suggested fix ("" gets a default for the kind).
	Action string `json:"action,omitempty"`
	// Evidence are the quotes that support it; at least one, at most
	// [MaxEvidence]. A contradiction needs two, from two places.
	Evidence []Quote `json:"evidence"`
}

// Verifier checks quoted evidence against the wiki's files (public API for
// lint, lint --deep and eval citations). It reads each file once, through
// the store's root, and keeps its normalised text; it records nothing in
// the audit log. Safe for concurrent use; make one per operation so edits
// made meanwhile are seen by the next.
type Verifier struct {
	st    *wiki.Store
	mu    sync.Mutex
	texts map[string]*verText
}

type verText struct {
	rel    string // the canonical project-relative path
	text   *quote.Text
	sum    string // sha256 (hex) of the bytes read
	reason string // why the file cannot hold evidence ("" when it can)
}

// NewVerifier returns a verifier reading st's files.
func NewVerifier(st *wiki.Store) *Verifier {
	return &Verifier{st: st, texts: map[string]*verText{}}
}

// Verify checks that q.Quote occurs in q.Path under the normalisation of
// package internal/quote (NFKC, case fold, quote and dash variants, no-break
// spaces, emphasis markers, whitespace runs and line wraps). It never
// fails: the result's Verified is false and Reason says why when the quote
// is too short (under 8 characters), too long (over 300), only whitespace,
// names no file, a file outside the wiki or under .llmwiki/, a missing or
// binary file, or is not in the file. Path in the result is the
// project-relative path the quote was checked against; Line is where the
// quote starts; SHA256 is the sha256 of the file as read (set only when
// the quote verified), which keeps that version's snapshot from the
// retention while the finding is stored.
func (v *Verifier) Verify(q Quote) Evidence {
	ev := Evidence{Path: strings.TrimSpace(q.Path), Quote: q.Quote}
	if r := quote.Check(q.Quote); r != "" {
		ev.Reason = r
		return ev
	}
	if ev.Path == "" {
		ev.Reason = "the evidence names no file"
		return ev
	}
	rel, t := v.load(ev.Path)
	ev.Path = rel
	if t.reason != "" {
		ev.Reason = t.reason
		return ev
	}
	line, ok := t.text.Find(q.Quote)
	if !ok {
		ev.Reason = "the quote is not in " + rel + "; copy the passage verbatim (only case, whitespace and line breaks, quote marks, dashes and emphasis markers may differ)"
		return ev
	}
	ev.Verified, ev.Line, ev.SHA256 = true, line, t.sum
	return ev
}

// load returns the canonical path of name and its prepared text.
func (v *Verifier) load(name string) (string, *verText) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t, ok := v.texts[name]; ok {
		return t.rel, t
	}
	rel, t := v.read(name)
	t.rel = rel
	if t2, ok := v.texts[rel]; ok && rel != name {
		t = t2
	}
	v.texts[name] = t
	v.texts[rel] = t
	return rel, t
}

func (v *Verifier) read(name string) (string, *verText) {
	rel, err := wiki.CleanPath(name)
	if err != nil {
		return name, &verText{reason: store.PublicMessage(err)}
	}
	if wiki.LayerOf(rel) == wiki.LayerState {
		return rel, &verText{reason: rel + " is the server's own state, not part of the wiki; quote pages, sources or context.md"}
	}
	data, err := v.st.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		// Not a path: perhaps a page's slug or title.
		if p, rerr := v.st.ResolvePage(name); rerr == nil {
			if d, err2 := v.st.ReadFile(p); err2 == nil {
				rel, data, err = p, d, nil
			}
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return rel, &verText{reason: rel + " does not exist; quote a file of the wiki (list_pages, gather_sources)"}
		case store.CodeOf(err) != store.CodeInternal:
			// Outside the root, a folder, not a regular file: the
			// message says which.
			return rel, &verText{reason: store.PublicMessage(err)}
		}
		return rel, &verText{reason: rel + " cannot be read"}
	}
	dec := mdoc.Decode(data) // quotes are checked against the text read_page shows
	if dec.Binary {
		return rel, &verText{reason: rel + " is a binary file; quote a text file"}
	}
	return rel, &verText{text: quote.Prepare(string(dec.Text)), sum: store.SHA256Hex(data)}
}

// Check verifies a proposal and returns it as a finding (not stored). The
// finding is Verified when every piece of evidence verifies and, for a
// contradiction, the verified quotes come from at least two places
// (different files, or different lines of one file, with different
// words); otherwise Verified is false and Note says why.
//
// A malformed proposal is an error (store.CodeInvalid, or CodeTooLarge for
// more than [MaxEvidence] pieces of evidence): an unknown kind, an empty
// message, no evidence.
func (v *Verifier) Check(p Proposal) (Finding, error) {
	var f Finding
	if !isAgentKind(p.Kind) {
		return f, store.Errorf(store.CodeInvalid, "kind %q cannot be submitted; use one of %s", p.Kind, strings.Join(AgentCategories(), ", "))
	}
	msg := strings.TrimSpace(p.Message)
	if msg == "" {
		return f, store.Errorf(store.CodeInvalid, "a %s finding needs a message that states it", p.Kind)
	}
	if !utf8.ValidString(msg) || !utf8.ValidString(p.Action) {
		return f, store.Errorf(store.CodeInvalid, "message and action must be valid UTF-8")
	}
	if utf8.RuneCountInString(msg) > MaxMessage || utf8.RuneCountInString(p.Action) > MaxMessage {
		return f, store.Errorf(store.CodeTooLarge, "message and action are limited to %d characters each", MaxMessage)
	}
	if len(p.Evidence) == 0 {
		return f, store.Errorf(store.CodeInvalid, "a %s finding needs evidence: at least one {file, quote} copied verbatim from the wiki", p.Kind)
	}
	if len(p.Evidence) > MaxEvidence {
		return f, store.Errorf(store.CodeTooLarge, "a finding may carry at most %d pieces of evidence (this one names %d); submit the strongest quotes, or split it into several findings", MaxEvidence, len(p.Evidence))
	}
	f = Finding{Kind: p.Kind, Severity: SeverityOf(p.Kind), Message: msg, Action: strings.TrimSpace(p.Action)}
	if f.Action == "" {
		f.Action = defaultAction(p.Kind)
	}
	seen := map[string]bool{}
	verified := 0
	var keys, fps []string
	type place struct {
		file string
		line int
		norm string
	}
	var places []place
	for _, q := range p.Evidence {
		ev := v.Verify(q)
		k := ev.Path + "\x00" + quote.Normalize(q.Quote)
		if seen[k] {
			continue // the same quote twice is one piece of evidence
		}
		seen[k] = true
		f.Evidence = append(f.Evidence, ev)
		keys = append(keys, k)
		fps = append(fps, fmt.Sprintf("%s\x00%v", k, ev.Verified))
		if ev.Verified {
			verified++
			places = append(places, place{ev.Path, ev.Line, quote.Normalize(q.Quote)})
		}
	}
	f.Path = strings.TrimSpace(p.Path)
	if f.Path == "" {
		f.Path = f.Evidence[0].Path
	} else if rel, t := v.load(f.Path); t.reason == "" {
		f.Path = rel
	}
	if e := firstVerifiedIn(f.Evidence, f.Path); e != nil {
		f.Line = e.Line
	}
	f.Verified = verified == len(f.Evidence)
	switch {
	case !f.Verified:
		f.Note = fmt.Sprintf("%d of %d quotes were not found; this is an unverified claim, not a fact", len(f.Evidence)-verified, len(f.Evidence))
	case p.Kind == KindContradiction:
		two := false
		for i := range places {
			for j := i + 1; j < len(places); j++ {
				a, b := places[i], places[j]
				if (a.file != b.file || a.line != b.line) && a.norm != b.norm && !strings.Contains(a.norm, b.norm) && !strings.Contains(b.norm, a.norm) {
					two = true
				}
			}
		}
		if !two {
			f.Verified = false
			f.Note = "a contradiction needs verified quotes from two different places; this is an unverified claim, not a fact"
		}
	}
	sort.Strings(keys)
	sort.Strings(fps)
	f.ID = hashParts(12, append([]string{"agent", p.Kind, f.Path}, keys...)...)
	f.Fingerprint = hashParts(16, append([]string{"agent", p.Kind, f.Path}, fps...)...)
	return f, nil
}

func firstVerifiedIn(evs []Evidence, file string) *Evidence {
	for i := range evs {
		if evs[i].Verified && evs[i].Path == file {
			return &evs[i]
		}
	}
	return nil
}

func defaultAction(kind string) string {
	switch kind {
	case KindContradiction:
		return "read both places, decide which is right from the sources, and fix the other (edit_page)"
	case KindStaleClaim:
		return "update the claim from the newer source and cite it (edit_page)"
	case KindUnsupportedClaim:
		return "cite a source that supports the claim, or remove it (edit_page)"
	case KindGap:
		return "write a page on the topic from the sources (write_page), then link it"
	}
	return "review it"
}

// proposalOf turns a stored finding back into the proposal it came from,
// so it can be checked again against the files as they are now.
func proposalOf(f Finding) Proposal {
	p := Proposal{Kind: f.Kind, Path: f.Path, Message: f.Message, Action: f.Action}
	for _, e := range f.Evidence {
		p.Evidence = append(p.Evidence, Quote{Path: e.Path, Quote: e.Quote})
	}
	return p
}
