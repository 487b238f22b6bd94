package wiki

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Gather budgets, in characters of content.
const (
	DefaultGatherBudget = 40_000
	MaxGatherBudget     = 400_000
	// maxGatherEntries bounds how many sources one page lists (binary files
	// and empty files cost no budget).
	maxGatherEntries = 200
)

// MaxSourceBytes is the largest source save_source accepts, in bytes.
const MaxSourceBytes = 8 << 20

// SourceInfo is one file under sources/.
type SourceInfo struct {
	Path     string `json:"path"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size"`
	Modified string `json:"modified"`
	// Status is "new" (never folded into context.md), "changed" (folded,
	// but its bytes changed since) or "folded".
	Status string `json:"status"`
	// Integrity, when set, says that the file was changed outside llmwiki
	// since it was first seen (sources are never rewritten).
	Integrity string `json:"integrity,omitempty"`
	Binary    bool   `json:"binary,omitempty"`
	// MediaType is set for binary files.
	MediaType string `json:"media_type,omitempty"`
	// Encoding names the encoding Content was decoded from when the file
	// is not UTF-8 ("utf-16le", "windows-1252"; see [mdoc.DecodeText]).
	Encoding string `json:"encoding,omitempty"`
	// EncodingUncertain is set when the encoding could not be determined:
	// Encoding is a guess and Content may be garbled (Note says so).
	EncodingUncertain bool `json:"encoding_uncertain,omitempty"`
	// Note says what was done to show the file (decoded, a line cut).
	Note string `json:"note,omitempty"`
	// Content is the text (absent for binary files).
	Content string `json:"content,omitempty"`
	// Chars is the length of the whole text, in characters.
	Chars int `json:"chars"`
	// Truncated is true when Content was cut at the budget: read the rest
	// with read_page from line NextFromLine.
	Truncated    bool `json:"truncated,omitempty"`
	NextFromLine int  `json:"next_from_line,omitempty"`
}

// GatherInput selects sources for [Store.GatherSources].
type GatherInput struct {
	// Mode is "pending" (default: not yet folded into context.md, or changed
	// since) or "all".
	Mode string
	// Since keeps sources modified at or after this RFC 3339 time.
	Since string
	// Under keeps sources under this folder ("sources/papers" or "papers").
	Under string
	// Budget is the most characters of content in one page of results.
	Budget int
	// Cursor continues a previous call; pass the NextCursor it returned,
	// with the same Mode, Since and Under.
	Cursor string
}

// GatherResult is one page of [Store.GatherSources].
type GatherResult struct {
	Sources []SourceInfo `json:"sources"`
	// NextCursor continues with the next page; "" when this was the last.
	NextCursor string `json:"next_cursor,omitempty"`
	// Matching is how many sources match the selection in all; Remaining
	// how many come after this page.
	Matching  int `json:"matching"`
	Remaining int `json:"remaining"`
	Budget    int `json:"budget"`
	// Chars is the content returned on this page, in characters.
	Chars int `json:"chars"`
	// LastBuild is context.md's built_at ("" before the first build).
	LastBuild string `json:"last_build,omitempty"`
}

type gatherCursor struct {
	After  string `json:"after"`
	Filter string `json:"filter"`
}

// ListSources lists every file under sources/ with its sha256 and status
// against context.md's provenance, sorted by path.
func (s *Store) ListSources() ([]SourceInfo, error) {
	return s.ListSourcesContext(context.Background())
}

// ListSourcesContext is [Store.ListSources] with progress reports
// ([Progress]) while it hashes, and cancellation: when ctx ends it stops
// with a CodeConflict error. Only files whose size or mtime changed since
// they were last hashed are read (see [SourcesRecordFile]).
func (s *Store) ListSourcesContext(ctx context.Context) ([]SourceInfo, error) {
	infos, _, err := s.listSources(ctx)
	if errors.Is(err, store.ErrNotRegular) {
		err = nil // the record cannot be read: the sources are listed unchecked
	}
	return infos, err
}

// listSources is [Store.ListSourcesContext] with the problems
// [Store.SourceIssues] reports.
func (s *Store) listSources(ctx context.Context) ([]SourceInfo, []SourceIssue, error) {
	prov, _ := s.Provenance()
	states, issues, err := s.scanSources(ctx)
	if err != nil && !errors.Is(err, store.ErrNotRegular) {
		return nil, nil, err
	}
	out := make([]SourceInfo, 0, len(states))
	for _, st := range states {
		si := SourceInfo{Path: st.path, SHA256: st.sha, Size: st.size, Modified: st.mtime.UTC().Format(time.RFC3339)}
		switch h, ok := prov[st.path]; {
		case !ok:
			si.Status = "new"
		case h != si.SHA256:
			si.Status = "changed"
		default:
			si.Status = "folded"
		}
		out = append(out, si)
	}
	for _, is := range issues {
		if is.Kind != SourceModified {
			continue
		}
		if i := sort.Search(len(out), func(i int) bool { return out[i].Path >= is.Path }); i < len(out) && out[i].Path == is.Path {
			out[i].Integrity = is.Message
		}
	}
	return out, issues, err
}

// GatherSources returns sources with their content, a page at a time. Every
// source that matches is returned exactly once across the pages of one
// cursor chain, in path order. Text counts against the budget; a source that
// does not fit starts the next page, and one larger than the whole budget
// comes alone, cut at the budget (Truncated, with the line to read on from).
// Binary files are listed with size and media type, never dumped.
func (s *Store) GatherSources(ctx context.Context, in GatherInput) (GatherResult, error) {
	var res GatherResult
	mode := in.Mode
	if mode == "" {
		mode = "pending"
	}
	if mode != "pending" && mode != "all" {
		return res, store.Errorf(store.CodeInvalid, "mode must be \"pending\" or \"all\"")
	}
	var since time.Time
	if in.Since != "" {
		t, err := time.Parse(time.RFC3339, in.Since)
		if err != nil {
			return res, store.Errorf(store.CodeInvalid, "since must be an RFC 3339 time like 2026-01-31T09:00:00Z")
		}
		since = t
	}
	under := ""
	if in.Under != "" {
		u := in.Under
		if _, err := CleanPath(u); err != nil {
			return res, err
		}
		if !strings.HasPrefix(u, "sources") {
			u = "sources/" + u
		}
		clean, err := CleanPath(u)
		if err != nil {
			return res, err
		}
		if clean != "sources" && !strings.HasPrefix(clean, "sources/") {
			return res, store.Errorf(store.CodeInvalid, "under must name a folder inside sources/")
		}
		under = clean
	}
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultGatherBudget
	}
	if budget > MaxGatherBudget {
		budget = MaxGatherBudget
	}
	res.Budget = budget
	filter := mode + "|" + in.Since + "|" + under
	after := ""
	if in.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		var c gatherCursor
		if err != nil || json.Unmarshal(raw, &c) != nil || c.After == "" {
			return res, store.Errorf(store.CodeInvalid, "cursor is not one gather_sources returned; start again without a cursor")
		}
		if c.Filter != filter {
			return res, store.Errorf(store.CodeInvalid, "cursor belongs to a call with other mode/since/under; repeat those arguments or start again without a cursor")
		}
		after = c.After
	}
	all, err := s.ListSourcesContext(ctx)
	if err != nil {
		return res, err
	}
	var match []SourceInfo
	for _, si := range all {
		if mode == "pending" && si.Status == "folded" {
			continue
		}
		if under != "" && si.Path != under && !strings.HasPrefix(si.Path, under+"/") {
			continue
		}
		if !since.IsZero() {
			if t, err := time.Parse(time.RFC3339, si.Modified); err == nil && t.Before(since.Truncate(time.Second)) {
				continue
			}
		}
		match = append(match, si)
	}
	res.Matching = len(match)
	_, res.LastBuild = s.Provenance()
	call := store.CallFrom(ctx)
	i := 0
	for i < len(match) && after != "" && match[i].Path <= after {
		i++
	}
	used := 0
	res.Sources = []SourceInfo{}
	for ; i < len(match) && len(res.Sources) < maxGatherEntries; i++ {
		si := match[i]
		data, ok, err := s.ReadRaw(si.Path)
		if err != nil || !ok {
			continue // removed meanwhile
		}
		dec := mdoc.Decode(data)
		if dec.Binary {
			si.Binary, si.MediaType = true, MediaType(si.Path, data)
			res.Sources = append(res.Sources, si)
			continue
		}
		si.Encoding, si.EncodingUncertain = dec.Encoding, dec.Uncertain
		if dec.Uncertain {
			si.Note = dec.Note()
		}
		text := string(dec.Text)
		n := utf8.RuneCountInString(text)
		si.Chars = n
		if used+n > budget {
			if len(res.Sources) > 0 && used > 0 {
				break
			}
			cut := truncateRunes(text, budget)
			if j := strings.LastIndexByte(cut, '\n'); j > 0 {
				cut = cut[:j+1]
				si.NextFromLine = strings.Count(cut, "\n") + 1
			} else {
				// One line longer than the whole budget: cut inside it.
				if strings.Contains(text, "\n") {
					si.NextFromLine = 2
				}
				note := fmt.Sprintf("line 1 has %d characters; only the first %d are shown", utf8.RuneCountInString(lineOf(text)), budget)
				if si.Note != "" {
					note = si.Note + "; " + note
				}
				si.Note = note
			}
			si.Content, si.Truncated = cut, true
			used += utf8.RuneCountInString(cut)
			res.Sources = append(res.Sources, si)
			call.AddRead(si.Path)
			i++
			break
		}
		si.Content = text
		used += n
		res.Sources = append(res.Sources, si)
		call.AddRead(si.Path)
	}
	res.Chars = used
	res.Remaining = len(match) - i
	if res.Remaining > 0 && len(res.Sources) > 0 {
		b, _ := json.Marshal(gatherCursor{After: res.Sources[len(res.Sources)-1].Path, Filter: filter})
		res.NextCursor = base64.RawURLEncoding.EncodeToString(b)
	}
	return res, nil
}

func lineOf(text string) string {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		return text[:i]
	}
	return text
}

// SourceInput is a new raw source for [Store.SaveSource].
type SourceInput struct {
	// Path is where it goes, under sources/ ("sources/papers/x.md" or
	// "papers/x.md"). Not under sources/research/ (research_save owns it).
	Path string
	// Content is the file's text, or its bytes in base64 when Encoding is
	// "base64".
	Content  string
	Encoding string
}

// SourceWrite is the result of [Store.SaveSource].
type SourceWrite struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
}

// SaveSource adds a new file under sources/ through the audited writer. It
// never overwrites: an existing path is CodeConflict. The bytes are stored
// exactly as given (after base64 decoding when asked).
func (s *Store) SaveSource(ctx context.Context, in SourceInput) (SourceWrite, error) {
	var out SourceWrite
	p, err := CleanPath(in.Path)
	if err != nil {
		return out, err
	}
	if !strings.HasPrefix(p, "sources/") {
		p = "sources/" + p
	}
	rel, err := CleanPath(p)
	if err != nil {
		return out, err
	}
	if LayerOf(rel) == LayerResearch {
		return out, store.Errorf(store.CodeInvalid, "sources/research/ is written by research_save; save raw documents elsewhere under sources/")
	}
	if rel == "sources" || path.Dir(rel) == "." {
		return out, store.Errorf(store.CodeInvalid, "name the file, like \"sources/notes.md\"")
	}
	var data []byte
	switch in.Encoding {
	case "", "utf-8", "text":
		if !utf8.ValidString(in.Content) {
			return out, store.Errorf(store.CodeInvalid, "content is not valid UTF-8; send binary files with encoding \"base64\"")
		}
		data = []byte(in.Content)
	case "base64":
		data, err = base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			return out, store.Errorf(store.CodeInvalid, "content is not valid base64")
		}
	default:
		return out, store.Errorf(store.CodeInvalid, "encoding must be \"text\" or \"base64\"")
	}
	if len(data) > MaxSourceBytes {
		return out, store.Errorf(store.CodeTooLarge, "source is %d bytes; the limit is %d", len(data), MaxSourceBytes)
	}
	err = s.Update(ctx, func(tx *store.Tx) error {
		if _, exists, err := tx.Read(rel); err != nil {
			return err
		} else if exists {
			return store.Errorf(store.CodeConflict, "%s already exists; sources are never overwritten. Save the new version under another name", rel)
		}
		return tx.Create(rel, data)
	})
	if err != nil {
		return out, err
	}
	return SourceWrite{Path: rel, SHA256: store.SHA256Hex(data), Size: len(data)}, nil
}

// ResearchInput is a research note for [Store.ResearchSave].
type ResearchInput struct {
	// Topic names the note; its slug names the file sources/research/<slug>.md.
	Topic string
	// Heading titles this section (optional; defaults to the time).
	Heading string
	// Content is the markdown of the findings.
	Content string
	// URLs are the web sources consulted (http/https).
	URLs []string
}

// ResearchWrite is the result of [Store.ResearchSave].
type ResearchWrite struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Created bool   `json:"created"`
	// Section is the heading of the section appended.
	Section string `json:"section"`
}

// MaxResearchBytes is the largest research section accepted, in bytes.
const MaxResearchBytes = 256 << 10

// ResearchSave creates sources/research/<slug>.md or appends a dated section
// to it. Existing bytes are never rewritten: the writer only appends.
func (s *Store) ResearchSave(ctx context.Context, in ResearchInput) (ResearchWrite, error) {
	var out ResearchWrite
	for _, f := range []string{in.Topic, in.Heading, in.Content} {
		if !utf8.ValidString(f) {
			return out, store.Errorf(store.CodeInvalid, "arguments must be valid UTF-8")
		}
	}
	if strings.TrimSpace(in.Content) == "" {
		return out, store.Errorf(store.CodeInvalid, "content is empty")
	}
	if len(in.Content) > MaxResearchBytes {
		return out, store.Errorf(store.CodeTooLarge, "content is %d bytes; the limit is %d per section", len(in.Content), MaxResearchBytes)
	}
	if strings.ContainsAny(in.Heading, "\r\n") || strings.ContainsAny(in.Topic, "\r\n") {
		return out, store.Errorf(store.CodeInvalid, "topic and heading must be one line")
	}
	slug, err := mdoc.NewSlugName(in.Topic)
	if err != nil {
		return out, err
	}
	for _, u := range in.URLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || strings.ContainsAny(u, " \r\n") {
			return out, store.Errorf(store.CodeInvalid, "url %q must be an http(s) address", u)
		}
	}
	rel := "sources/research/" + slug + ".md"
	now := s.Now()
	heading := strings.TrimSpace(in.Heading)
	section := now.Format("2006-01-02 15:04") + " UTC"
	if heading != "" {
		section += " — " + oneLine(heading)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s\n\n%s", section, strings.TrimRight(mdoc.DemoteHeadings(in.Content), "\n"))
	b.WriteString("\n")
	if len(in.URLs) > 0 {
		b.WriteString("\nSources:\n")
		for _, u := range in.URLs {
			fmt.Fprintf(&b, "- <%s>\n", u)
		}
	}
	var final []byte
	err = s.Update(ctx, func(tx *store.Tx) error {
		cur, exists, err := tx.Read(rel)
		if err != nil {
			return err
		}
		if !exists {
			head, err := mdoc.RenderDoc([]mdoc.Field{
				{Key: "title", Value: strings.TrimSpace(in.Topic)},
				{Key: "type", Value: "research"},
				{Key: "created", Value: now.Format(time.RFC3339)},
			}, nil, []byte("# "+oneLine(in.Topic)+"\n"))
			if err != nil {
				return err
			}
			out.Created = true
			final = append(head, b.String()...)
			return tx.Create(rel, final)
		}
		final = append(append([]byte(nil), cur...), b.String()...)
		return tx.Append(rel, []byte(b.String()))
	})
	if err != nil {
		return out, err
	}
	cur, _, _ := s.ReadRaw(rel)
	out.Path, out.SHA256, out.Section = rel, store.SHA256Hex(cur), section
	return out, nil
}
