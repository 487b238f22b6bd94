package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
)

// Severities, most serious first. A finding of severity Error makes
// `llmwiki lint` exit with status 1.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
)

// The deterministic categories ([Run]).
const (
	KindDanglingLink       = "dangling_link"        // a link no file or alias matches
	KindMissingEmbed       = "missing_embed"        // ![[x]] or ![](x) of a file that does not exist
	KindMissingHeading     = "missing_heading"      // [[p#H]] or [[p#^id]]: p has no such heading or block
	KindAmbiguousLink      = "ambiguous_link"       // several files match a link equally well
	KindOrphanPage         = "orphan_page"          // no inbound links (context.md counts; a generated index.md does not)
	KindPageWithoutSources = "page_without_sources" // no sources in the frontmatter
	KindMissingSource      = "missing_source"       // cites a path under sources/ that does not exist
	KindMissingFrontmatter = "missing_frontmatter"  // lacks a key of required_frontmatter
	KindStalePage          = "stale_page"           // not updated for stale_after_days, or a cited source changed since
	KindDuplicateTitle     = "duplicate_title"      // several pages share a title
	KindDuplicateAlias     = "duplicate_alias"      // an alias claimed twice, or naming another page
	KindMergeCandidate     = "merge_candidate"      // near-duplicate pages
	KindIndexDrift         = "index_drift"          // index.md out of step with the pages
	KindContextOverCap     = "context_over_cap"     // context.md longer than context_max_lines
	KindBadFrontmatter     = "bad_frontmatter"      // frontmatter that does not parse
	KindSourceModified     = wiki.SourceModified    // a source's bytes differ from those first seen
	KindSourceDeleted      = wiki.SourceDeleted     // a source first seen earlier is gone
)

// The categories an agent or model submits with quoted evidence ([Submit]).
const (
	KindContradiction    = "contradiction"     // two places say incompatible things (two verified quotes)
	KindStaleClaim       = "stale_claim"       // a claim a newer source overtook
	KindUnsupportedClaim = "unsupported_claim" // a claim no cited source supports
	KindGap              = "gap"               // a topic the wiki mentions but does not cover
)

type kindInfo struct {
	name, severity string
	agent          bool
}

var kinds = []kindInfo{
	{KindDanglingLink, Error, false},
	{KindMissingEmbed, Error, false},
	{KindMissingHeading, Warning, false},
	{KindAmbiguousLink, Warning, false},
	{KindOrphanPage, Warning, false},
	{KindPageWithoutSources, Warning, false},
	{KindMissingSource, Warning, false},
	{KindMissingFrontmatter, Warning, false},
	{KindStalePage, Warning, false},
	{KindDuplicateTitle, Warning, false},
	{KindDuplicateAlias, Warning, false},
	{KindMergeCandidate, Info, false},
	{KindIndexDrift, Warning, false},
	{KindContextOverCap, Error, false},
	{KindBadFrontmatter, Error, false},
	{KindSourceModified, Error, false},
	{KindSourceDeleted, Error, false},
	{KindSyncConflict, Error, false},
	{KindContradiction, Warning, true},
	{KindStaleClaim, Warning, true},
	{KindUnsupportedClaim, Warning, true},
	{KindGap, Info, true},
}

// Categories returns every category name: the deterministic ones, then
// those agents submit.
func Categories() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// AgentCategories returns the categories an agent may submit.
func AgentCategories() []string {
	var out []string
	for _, k := range kinds {
		if k.agent {
			out = append(out, k.name)
		}
	}
	return out
}

func isKind(k string) bool {
	for _, x := range kinds {
		if x.name == k {
			return true
		}
	}
	return false
}

func isAgentKind(k string) bool {
	for _, x := range kinds {
		if x.name == k {
			return x.agent
		}
	}
	return false
}

// SeverityOf returns the severity of a category ("" for an unknown one).
func SeverityOf(kind string) string {
	for _, x := range kinds {
		if x.name == kind {
			return x.severity
		}
	}
	return ""
}

func severityRank(s string) int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Finding is one problem lint found or an agent submitted.
type Finding struct {
	// ID is stable across runs for the same problem: a hash of the kind,
	// the file and what the problem is about (the link, the pair of pages).
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	// Path is the project-relative path the finding is about; Line is
	// 1-based (0 when the finding is about the whole file).
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Action is what to do about it.
	Action string `json:"action"`
	// Target is the link target or the missing name, when there is one.
	Target string `json:"target,omitempty"`
	// Related are the other files involved (duplicates, merge candidates).
	Related []string `json:"related,omitempty"`
	// Evidence is the quoted evidence of a submitted finding, each piece
	// checked against its file.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Verified is true for deterministic findings (the server computed
	// them) and for submitted findings whose evidence all verified (a
	// contradiction: from two places). A finding with Verified false is a
	// claim, never a fact.
	Verified bool `json:"verified"`
	// Note says why a submitted finding is not verified.
	Note string `json:"note,omitempty"`
	// Source is "lint" for deterministic findings, else who submitted it
	// ("agent", "model").
	Source string `json:"source"`
	// SubmittedBy and Submitted record a submitted finding's origin
	// (session or client, RFC 3339 time).
	SubmittedBy string `json:"submitted_by,omitempty"`
	Submitted   string `json:"submitted,omitempty"`
	// Dismissed is true when a person dismissed the finding and its
	// evidence has not changed since (shown only on request).
	Dismissed bool `json:"dismissed,omitempty"`
	// Fingerprint is a hash of the finding's evidence; a dismissal holds
	// until it changes.
	Fingerprint string `json:"fingerprint"`
}

// Evidence is one quoted piece of evidence and whether it was found.
type Evidence struct {
	// Path is the project-relative path the quote comes from.
	Path string `json:"path"`
	// Quote is the passage as submitted.
	Quote string `json:"quote"`
	// Verified is true when the quote occurs in the file under the
	// normalisation of package internal/quote.
	Verified bool `json:"verified"`
	// Line is the 1-based line where the quote starts in the file (0 when
	// not verified).
	Line int `json:"line,omitempty"`
	// SHA256 is the sha256 (64 lowercase hex digits) of the file's content
	// the quote was found in; empty when not verified. A stored finding
	// that cites a version keeps its last snapshot from the retention
	// (see wiki.Store.PruneSnapshots).
	SHA256 string `json:"sha256,omitempty"`
	// Reason says why the evidence is not verified.
	Reason string `json:"reason,omitempty"`
}

// hashParts returns the first n hex digits of the SHA-256 of the parts,
// each followed by a zero byte.
func hashParts(n int, parts ...string) string {
	var buf [512]byte
	b := buf[:0]
	for _, p := range parts {
		b = append(append(b, p...), 0)
	}
	sum := sha256.Sum256(b)
	var out [64]byte
	hex.Encode(out[:], sum[:n/2])
	return string(out[:n/2*2])
}

// newFinding fills in the id, severity and fingerprint of a deterministic
// finding. key says what the finding is about within its file (a link and
// its occurrence); evidence is what a dismissal is tied to.
func newFinding(kind, file string, line int, key, evidence, msg, action string) Finding {
	return Finding{
		ID:          hashParts(12, kind, file, key),
		Kind:        kind,
		Severity:    SeverityOf(kind),
		Path:        file,
		Line:        line,
		Message:     msg,
		Action:      action,
		Verified:    true,
		Source:      "lint",
		Fingerprint: hashParts(16, kind, file, key, evidence),
	}
}

// sortFindings orders findings by severity, kind, file, line, id. It sorts
// indexes and then moves each finding once: a finding is a few hundred
// bytes and a big wiki has 100k+ of them.
func sortFindings(fs []Finding) {
	idx := make([]int32, len(fs))
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := &fs[idx[i]], &fs[idx[j]]
		if ra, rb := severityRank(a.Severity), severityRank(b.Severity); ra != rb {
			return ra < rb
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.ID < b.ID
	})
	// Apply the permutation in place, cycle by cycle.
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp := fs[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				fs[j] = tmp
				break
			}
			fs[j] = fs[k]
			j = k
		}
	}
}

// listShort joins up to n items and says how many more there are.
func listShort(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + ", and " + strconv.Itoa(len(items)-n) + " more"
}

// UnmarshalJSON reads a finding, also one stored in .llmwiki/lint/agent.json
// before the wire vocabulary named its file "path" and its time "submitted"
// (then "file" and "submitted_at").
func (f *Finding) UnmarshalJSON(b []byte) error {
	type plain Finding
	var v struct {
		plain
		OldFile        string `json:"file"`
		OldSubmittedAt string `json:"submitted_at"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Finding(v.plain)
	if f.Path == "" {
		f.Path = v.OldFile
	}
	if f.Submitted == "" {
		f.Submitted = v.OldSubmittedAt
	}
	return nil
}

// UnmarshalJSON reads evidence, also as stored before its file was "path"
// (then "file").
func (e *Evidence) UnmarshalJSON(b []byte) error {
	type plain Evidence
	var v struct {
		plain
		OldFile string `json:"file"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Evidence(v.plain)
	if e.Path == "" {
		e.Path = v.OldFile
	}
	return nil
}
