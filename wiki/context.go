package wiki

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ContextInput is a new context.md for [Store.WriteContext].
type ContextInput struct {
	// Content is the markdown body of context.md (no frontmatter: the server
	// writes the build provenance there).
	Content string
	// FoldedSources are the paths under sources/ this synthesis folds in.
	// Their current sha256 is recorded in context.md's frontmatter, and
	// gather_sources stops reporting them as pending.
	FoldedSources []string
	// OnOverflow is "refuse" (default) or "spill": what to do when Content
	// has more lines than the cap.
	OnOverflow string
	// BaseSHA256, when set, must match the current context.md.
	BaseSHA256 string
	// BuiltBy names who built it (client name); recorded in frontmatter.
	BuiltBy string
	// Logged: the caller writes the operation's log.md entry itself (an
	// applied plan logs once for all its actions), so no build entry is
	// appended here.
	Logged bool
}

// ContextWrite is the result of [Store.WriteContext].
type ContextWrite struct {
	SHA256 string `json:"sha256"`
	// Lines is the number of body lines written; Cap is the line cap.
	Lines int `json:"lines"`
	Cap   int `json:"cap"`
	// Snapshot is where the replaced version was saved.
	Snapshot string `json:"snapshot,omitempty"`
	// SpilledTo is the page that received the lines over the cap, and
	// SpilledLines how many moved, with on_overflow "spill".
	SpilledTo    string `json:"spilled_to,omitempty"`
	SpilledLines int    `json:"spilled_lines,omitempty"`
	// Folded lists the sources recorded as folded, with their sha256.
	Folded []FoldedSource `json:"folded"`
	// LogEntry is the heading of the build entry appended to log.md in the
	// same write.
	LogEntry string `json:"log_entry"`
}

// buildLogEntry is the log.md entry of a context.md write: op build, the
// counts in the title, who wrote it and the folded sources in the details,
// as many as fit [MaxLogDetails] (the rest counted), so the entry never
// fails the write.
func buildLogEntry(w ContextWrite, by string) LogInput {
	title := fmt.Sprintf("context.md: %d sources folded, %d of %d lines", len(w.Folded), w.Lines, w.Cap)
	if w.SpilledTo != "" {
		title += fmt.Sprintf(", %d lines spilled to %s", w.SpilledLines, w.SpilledTo)
	}
	var d strings.Builder
	if by = strings.Join(strings.FieldsFunc(by, unicode.IsControl), " "); by != "" {
		if r := []rune(by); len(r) > 200 {
			by = string(r[:200]) + "…"
		}
		fmt.Fprintf(&d, "Written with atomic_write_context by %s.\n", by)
	}
	for i, f := range w.Folded {
		line := "- " + f.Path + "\n"
		if d.Len()+len(line) > MaxLogDetails-40 {
			fmt.Fprintf(&d, "- and %d more\n", len(w.Folded)-i)
			break
		}
		d.WriteString(line)
	}
	return LogInput{Op: "build", Title: title, Details: d.String()}
}

// FoldedSource is one source recorded in context.md's provenance.
type FoldedSource struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// MaxContextBytes is the largest context.md body accepted, in bytes.
const MaxContextBytes = 2 << 20

// WriteContext replaces context.md through the audited writer.
//
// Over the line cap (schema.md's context_max_lines, default 400) it refuses
// with CodeTooLarge naming the count and the cap, leaving the old file and
// making no snapshot; with OnOverflow "spill" it keeps what fits (cut at a
// heading or outside a code fence where possible), moves the rest to a new
// page pages/context-overflow-<time>.md and ends context.md with a pointer
// line to it. Nothing is ever cut silently. The same write appends a build
// entry to log.md ("## [YYYY-MM-DD HH:MM] build | context.md: ...").
func (s *Store) WriteContext(ctx context.Context, in ContextInput) (out ContextWrite, err error) {
	ctx, call, done := s.WithOwnCall(ctx)
	defer func() { done(err) }()
	if !utf8.ValidString(in.Content) {
		return out, store.Errorf(store.CodeInvalid, "content is not valid UTF-8")
	}
	if strings.TrimSpace(in.Content) == "" {
		return out, store.Errorf(store.CodeInvalid, "content is empty; context.md must hold the synthesis")
	}
	if len(in.Content) > MaxContextBytes {
		return out, store.Errorf(store.CodeTooLarge, "content is %d bytes; the limit is %d", len(in.Content), MaxContextBytes)
	}
	if d, err := mdoc.ParseDoc("content", []byte(in.Content)); err != nil || d.Format != mdoc.FormatNone {
		return out, store.Errorf(store.CodeInvalid, "content starts with a frontmatter block; send only the markdown body (the server writes context.md's frontmatter)")
	}
	switch in.OnOverflow {
	case "", "refuse", "spill":
	default:
		return out, store.Errorf(store.CodeInvalid, "on_overflow must be \"refuse\" or \"spill\"")
	}
	if in.BaseSHA256 != "" && !isHexSHA(in.BaseSHA256) {
		return out, store.Errorf(store.CodeInvalid, "base_sha256 must be 64 hex digits, as read_page returns it")
	}
	folded := make([]string, 0, len(in.FoldedSources))
	seen := map[string]bool{}
	for _, p := range in.FoldedSources {
		rel, err := CleanPath(p)
		if err != nil {
			return out, err
		}
		if l := LayerOf(rel); l != LayerSources && l != LayerResearch {
			return out, store.Errorf(store.CodeInvalid, "folded source %s is not under sources/", rel)
		}
		if !seen[rel] {
			seen[rel] = true
			folded = append(folded, rel)
		}
	}
	cap := s.Settings().ContextMaxLines
	out.Cap = cap
	body := in.Content
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	lines := strings.SplitAfter(body, "\n")
	lines = lines[:len(lines)-1] // the empty string after the last "\n"
	var spill []string
	now := s.Now()
	spillSlug := ""
	if len(lines) > cap {
		if in.OnOverflow != "spill" {
			return out, store.Errorf(store.CodeTooLarge, "content has %d lines; context.md's cap is %d. Shorten it, or pass on_overflow \"spill\" to move the tail to a new page", len(lines), cap)
		}
		if cap < 4 {
			return out, store.Errorf(store.CodeTooLarge, "context.md's cap (%d lines) is too small to spill into", cap)
		}
		cut := spillCut(lines, cap-2)
		spill = lines[cut:]
		lines = append(lines[:cut:cut], "\n")
		spillSlug = "context-overflow-" + now.Format("20060102-150405")
	}
	err = s.Update(ctx, func(tx *store.Tx) error {
		cur, exists, err := tx.Read("context.md")
		if err != nil {
			return err
		}
		if in.BaseSHA256 != "" {
			if !exists {
				return store.Errorf(store.CodeNotFound, "context.md does not exist; omit base_sha256")
			}
			if got := store.SHA256Hex(cur); got != strings.ToLower(in.BaseSHA256) {
				return store.Errorf(store.CodeConflict, "context.md changed since you read it (base_sha256 %s… does not match the current %s…); read it again and retry", short(in.BaseSHA256), short(got))
			}
		}
		var old *mdoc.Doc
		if exists {
			if d, err := mdoc.ParseDoc("context.md", cur); err == nil {
				old = d
			} else {
				store.CallFrom(tx.Context()).AddWarning(store.PublicMessage(err) + "; the old frontmatter was replaced, and the old file is kept in its snapshot")
			}
		}
		prov := map[string]string{}
		if old != nil {
			if m, ok := old.Meta["folded_sources"].(map[string]any); ok {
				for k, v := range m {
					if sv, ok := v.(string); ok {
						prov[k] = sv
					}
				}
			}
		}
		out.Folded = out.Folded[:0]
		for _, rel := range folded {
			data, ok, err := tx.Read(rel)
			if err != nil {
				return err
			}
			if !ok {
				return store.Errorf(store.CodeNotFound, "folded source %s does not exist; gather_sources lists the sources", rel)
			}
			sum := store.SHA256Hex(data)
			prov[rel] = sum
			out.Folded = append(out.Folded, FoldedSource{Path: rel, SHA256: sum})
		}
		if spill != nil {
			slug := spillSlug
			for i := 2; ; i++ {
				if _, ok, _ := tx.Read(PagePath(slug)); !ok {
					break
				}
				slug = fmt.Sprintf("%s-%d", spillSlug, i)
			}
			pointer := fmt.Sprintf("> The rest of this synthesis (%d lines) moved to [[%s]] because context.md is capped at %d lines.\n", len(spill), slug, cap)
			lines = append(lines, pointer)
			page, err := mdoc.RenderDoc([]mdoc.Field{
				{Key: "title", Value: "Context overflow " + now.Format("2006-01-02 15:04:05")},
				{Key: "summary", Value: fmt.Sprintf("Lines moved out of context.md by atomic_write_context (cap %d lines).", cap)},
				{Key: "tags", Value: []string{"context-overflow"}},
				{Key: "created", Value: now.Format(time.RFC3339)},
				{Key: "updated", Value: now.Format(time.RFC3339)},
			}, nil, []byte("Continued from [[context]].\n\n"+strings.Join(spill, "")))
			if err != nil {
				return err
			}
			if err := tx.Create(PagePath(slug), page); err != nil {
				return err
			}
			out.SpilledTo, out.SpilledLines = PagePath(slug), len(spill)
		}
		keys := make([]string, 0, len(prov))
		for k := range prov {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		provNode := map[string]string{}
		for _, k := range keys {
			provNode[k] = prov[k]
		}
		newBody := strings.Join(lines, "")
		data, err := mdoc.RenderDoc([]mdoc.Field{
			{Key: "built_at", Value: now.Format(time.RFC3339)},
			{Key: "built_by", Value: in.BuiltBy},
			{Key: "folded_sources", Value: provNode},
		}, old, []byte(newBody))
		if err != nil {
			return err
		}
		// A context.md with "\r\n" line ends keeps them on every line.
		data = WithLineEnds(data, exists && FirstLineCRLF(cur))
		out.Lines = len(lines)
		out.SHA256 = store.SHA256Hex(data)
		if err := tx.Replace("context.md", data, ""); err != nil {
			return err
		}
		if in.Logged {
			return nil
		}
		heading, entry, err := RenderLogEntry(now.Format("2006-01-02 15:04"), buildLogEntry(out, in.BuiltBy))
		if err != nil {
			return err
		}
		if _, err := appendLogTx(tx, entry); err != nil {
			return err
		}
		out.LogEntry = heading
		return nil
	})
	if err != nil {
		return ContextWrite{}, err
	}
	for _, sn := range call.SnapshotsTaken() {
		if strings.HasPrefix(sn, store.SnapshotDir+"/context.md/") {
			out.Snapshot = sn
		}
	}
	if out.Folded == nil {
		out.Folded = []FoldedSource{}
	}
	return out, nil
}

// spillCut chooses where to cut lines so at most keep lines stay: at the last
// heading in the second half of what fits, else at keep; never inside a
// fenced code block (the cut moves back to the fence's opening line).
func spillCut(lines []string, keep int) int {
	fenceStart := -1
	var fences mdoc.Fences
	lastHeading := -1
	for i := 0; i < keep && i < len(lines); i++ {
		switch fences.Line(lines[i]) {
		case mdoc.Open:
			fenceStart = i
		case mdoc.Heading:
			if i >= keep/2 {
				lastHeading = i
			}
		}
	}
	cut := keep
	if fences.Open() && fenceStart > 0 {
		cut = fenceStart
	}
	if lastHeading > 0 && lastHeading < cut {
		cut = lastHeading
	}
	return cut
}

// Provenance returns the sources recorded as folded in context.md's
// frontmatter (path → sha256) and the time of the last build ("" if none).
func (s *Store) Provenance() (map[string]string, string) {
	prov := map[string]string{}
	data, ok, err := s.ReadRaw("context.md")
	if err != nil || !ok {
		return prov, ""
	}
	d, err := mdoc.ParseDoc("context.md", data)
	if err != nil || d.Meta == nil {
		return prov, ""
	}
	if m, ok := d.Meta["folded_sources"].(map[string]any); ok {
		for k, v := range m {
			if sv, ok := v.(string); ok {
				prov[k] = sv
			}
		}
	}
	return prov, mdoc.MetaString(d.Meta, "built_at")
}
