package edit

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// The operations of [Edit].
const (
	// OpAppend adds Content at the end of the section under Heading; a
	// missing section is created at the end of the page.
	OpAppend = "append"
	// OpReplace replaces the content of the section under Heading (the
	// heading line stays; "" empties the section).
	OpReplace = "replace"
	// OpInsertBefore inserts Content (usually a new section, heading
	// included) just before the heading Heading.
	OpInsertBefore = "insert_before"
	// OpInsertAfter inserts Content just after the end of the section under
	// Heading (before the next heading of the same or a higher level).
	OpInsertAfter = "insert_after"
	// OpAddLinks adds Links as "- [[target]]" items to the "Related"
	// section (created when missing); links it already has are skipped.
	OpAddLinks = "add_links"
	// OpFindReplace replaces every occurrence of Find in the body with
	// Replace; the number of occurrences must equal Count.
	OpFindReplace = "find_replace"
	// OpFrontmatter only merges Frontmatter.
	OpFrontmatter = "frontmatter"
)

// Ops lists the operations of [Edit].
var Ops = []string{OpAppend, OpReplace, OpInsertBefore, OpInsertAfter, OpAddLinks, OpFindReplace, OpFrontmatter}

// MaxLinks is the most links one add_links edit may add.
const MaxLinks = 50

// Input is one edit of one page.
type Input struct {
	// Page names the page: a path ("pages/x.md") or a slug or title.
	Page string
	// BaseSHA256 is the sha256 of the version the caller read (read_page);
	// required.
	BaseSHA256 string
	// Op is one of [Ops].
	Op string
	// Heading names the section for append, replace, insert_before and
	// insert_after: its text ("Setup"), optionally with its level
	// ("## Setup"). Compared ignoring case, emphasis and punctuation that
	// links cannot hold; it must name one heading.
	Heading string
	// Content is the markdown to add or put in place.
	Content string
	// Links are targets for add_links ("other-page", "[[Other page]]",
	// "other-page|shown text"); each must resolve to an existing file.
	Links []string
	// Find, Replace and Count are for find_replace: Find is literal text,
	// Count the number of occurrences the caller expects (at least 1).
	Find, Replace string
	Count         int
	// Frontmatter holds keys to set (a nil value removes the key), merged
	// with any operation. created and updated belong to the server.
	Frontmatter map[string]any
}

// Result reports an edit.
type Result struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Changed is false when the edit left the page as it was (nothing was
	// written).
	Changed bool `json:"changed"`
	// Done says what changed, in words.
	Done string `json:"done"`
	// Snapshot is the snapshot of the replaced version.
	Snapshot string `json:"snapshot,omitempty"`
	// Replacements is how many occurrences find_replace replaced.
	Replacements int `json:"replacements,omitempty"`
	// LinksAdded are the links add_links wrote.
	LinksAdded []string `json:"links_added,omitempty"`
	// Updated is the page's new updated time (RFC 3339).
	Updated string `json:"updated,omitempty"`
}

// Edit changes one page through the audited writer. The page is read
// inside the write transaction; its sha256 must equal BaseSHA256
// (CodeConflict otherwise). A heading that names no section (for replace,
// insert_before, insert_after) is CodeNotFound and lists the page's
// headings; one that names several is CodeInvalid. find_replace with a
// count that does not match is CodeConflict and nothing is written. Every
// edit that changes the page sets frontmatter updated to now; keys and
// lines it does not touch stay byte for byte.
func Edit(ctx context.Context, st *wiki.Store, g *links.Graph, in Input) (Result, error) {
	var res Result
	if err := checkInput(&in); err != nil {
		return res, err
	}
	rel, err := st.ResolvePage(in.Page)
	if err != nil {
		return res, err
	}
	if wiki.LayerOf(rel) != wiki.LayerPages {
		return res, store.Errorf(store.CodeInvalid, "%s is not a page; edit_page changes files under pages/", rel)
	}
	ctx, finish := ensureCall(ctx, st, "edit_page", in)
	defer func() { finish(err) }()
	var view *links.View
	if in.Op == OpAddLinks {
		if view, err = g.View(ctx); err != nil {
			return res, err
		}
	}
	before := len(store.CallFrom(ctx).SnapshotsTaken())
	now := st.Now().Format(time.RFC3339)
	err = st.Update(ctx, func(tx *store.Tx) error {
		data, ok, err := tx.Read(rel)
		if err != nil {
			return err
		}
		if !ok {
			return store.Errorf(store.CodeNotFound, "page %s was removed meanwhile", rel)
		}
		if got := store.SHA256Hex(data); got != in.BaseSHA256 {
			return store.Errorf(store.CodeConflict, "%s changed since you read it (base_sha256 %s… does not match the current %s…); read it again and redo the edit on the new version", rel, in.BaseSHA256[:12], got[:12])
		}
		out, err := apply(rel, data, in, view, now)
		if err != nil {
			return err
		}
		res = out.Result
		res.Path = rel
		if !out.changed {
			res.SHA256 = store.SHA256Hex(data)
			return nil
		}
		res.Changed = true
		res.Updated = now
		res.SHA256 = store.SHA256Hex(out.data)
		return tx.Replace(rel, out.data, in.BaseSHA256)
	})
	if err != nil {
		return Result{}, err
	}
	if snaps := store.CallFrom(ctx).SnapshotsTaken(); len(snaps) > before {
		for _, s := range snaps[before:] {
			if strings.HasPrefix(s, ".llmwiki/snapshots/"+rel+"/") {
				res.Snapshot = s
			}
		}
	}
	return res, nil
}

// ensureCall puts a Call for tool in ctx when it has none (command-line
// use) and returns a function that audits it.
func ensureCall(ctx context.Context, st *wiki.Store, tool string, args any) (context.Context, func(error)) {
	if store.CallFrom(ctx) != nil {
		return ctx, func(error) {}
	}
	c := store.NewCall(tool, st.SessionID(), args)
	return store.WithCall(ctx, c), func(err error) {
		if aerr := st.Audit(c, err); aerr != nil {
			st.Logger().Error("audit line not written", "tool", tool, "err", aerr)
		}
	}
}

func checkInput(in *Input) error {
	known := false
	for _, o := range Ops {
		known = known || in.Op == o
	}
	if !known {
		return store.Errorf(store.CodeInvalid, "op %q is not an edit; use one of %s", in.Op, strings.Join(Ops, ", "))
	}
	in.BaseSHA256 = strings.ToLower(strings.TrimSpace(in.BaseSHA256))
	if in.BaseSHA256 == "" {
		return store.Errorf(store.CodeInvalid, "base_sha256 is required: read_page the page and pass its sha256, so an edit never lands on a version you have not seen")
	}
	if len(in.BaseSHA256) != 64 || strings.Trim(in.BaseSHA256, "0123456789abcdef") != "" {
		return store.Errorf(store.CodeInvalid, "base_sha256 must be 64 hex digits, as read_page returns it")
	}
	for _, s := range []string{in.Page, in.Heading, in.Content, in.Find, in.Replace} {
		if !utf8.ValidString(s) {
			return store.Errorf(store.CodeInvalid, "arguments must be valid UTF-8 text")
		}
	}
	if len(in.Content) > wiki.MaxPageBytes || len(in.Replace) > wiki.MaxPageBytes {
		return store.Errorf(store.CodeTooLarge, "content is over %d bytes; split the page", wiki.MaxPageBytes)
	}
	switch in.Op {
	case OpAppend, OpReplace, OpInsertBefore, OpInsertAfter:
		if strings.TrimSpace(strings.TrimLeft(in.Heading, "#")) == "" {
			return store.Errorf(store.CodeInvalid, "%s needs heading: the text of the section's heading, like \"Setup\" or \"## Setup\"", in.Op)
		}
		if strings.ContainsAny(in.Heading, "\r\n") {
			return store.Errorf(store.CodeInvalid, "heading must be one line")
		}
		if in.Op != OpReplace && strings.TrimSpace(in.Content) == "" {
			return store.Errorf(store.CodeInvalid, "%s needs content to add", in.Op)
		}
	case OpAddLinks:
		if len(in.Links) == 0 {
			return store.Errorf(store.CodeInvalid, "add_links needs links: the pages to list under Related")
		}
		if len(in.Links) > MaxLinks {
			return store.Errorf(store.CodeTooLarge, "add_links adds at most %d links at a time (got %d)", MaxLinks, len(in.Links))
		}
	case OpFindReplace:
		if in.Find == "" {
			return store.Errorf(store.CodeInvalid, "find_replace needs find: the exact text to replace")
		}
		if in.Count < 1 {
			return store.Errorf(store.CodeInvalid, "find_replace needs count: how many occurrences of find you expect (at least 1); a different number is an error and nothing is written")
		}
	case OpFrontmatter:
		if len(in.Frontmatter) == 0 {
			return store.Errorf(store.CodeInvalid, "frontmatter needs at least one key to set (null removes a key)")
		}
	}
	return nil
}

type applied struct {
	Result
	data    []byte
	changed bool
}

// apply computes the edited file.
func apply(rel string, data []byte, in Input, view *links.View, now string) (applied, error) {
	var out applied
	d, err := mdoc.ParseDoc(rel, data)
	if err != nil {
		return out, &store.Error{Code: store.CodeInvalid, Msg: store.PublicMessage(err) + "; the page was not changed (fix its frontmatter by hand or restore a snapshot)", Err: err}
	}
	bodyStart := 0
	if bytes.HasSuffix(data, d.Body) {
		bodyStart = len(data) - len(d.Body)
	}
	body := string(data[bodyStart:])
	pg := links.Parse(rel, data)
	hs := make([]links.Heading, len(pg.Headings))
	for i, h := range pg.Headings {
		h.Start -= bodyStart
		h.End -= bodyStart
		hs[i] = h
	}
	content := strings.TrimRight(strings.TrimLeft(in.Content, "\r\n"), " \t\r\n")
	newBody := body
	switch in.Op {
	case OpAppend, OpReplace, OpInsertBefore, OpInsertAfter:
		newBody, out.Done, err = sectionEdit(body, hs, in.Op, in.Heading, content)
	case OpAddLinks:
		newBody, out.Done, out.LinksAdded, err = addLinks(rel, data, bodyStart, body, hs, pg, in.Links, view)
	case OpFindReplace:
		n := strings.Count(body, in.Find)
		if n != in.Count {
			return out, store.Errorf(store.CodeConflict, "find matches %d times in the body of %s, not the %d you expected; nothing was written (read the page again, or give more text so find is exact)", n, rel, in.Count)
		}
		newBody = strings.ReplaceAll(body, in.Find, in.Replace)
		out.Replacements = n
		out.Done = fmt.Sprintf("replaced %d occurrence(s)", n)
	case OpFrontmatter:
		out.Done = "merged frontmatter"
	}
	if err != nil {
		return out, err
	}
	if len(newBody) > wiki.MaxPageBytes {
		return out, store.Errorf(store.CodeTooLarge, "the page would be %d bytes; the limit is %d. Split the topic into several pages", len(newBody), wiki.MaxPageBytes)
	}
	fields, err := frontmatterFields(in.Frontmatter)
	if err != nil {
		return out, err
	}
	if len(fields) > 0 && in.Op != OpFrontmatter {
		out.Done += "; merged frontmatter"
	}
	if newBody == body && !fieldsChange(d, fields) {
		out.Done = "nothing to change: " + out.Done
		return out, nil
	}
	fields = append(fields, mdoc.Field{Key: "updated", Value: now})
	// A page with "\r\n" line ends keeps them on every line: the
	// frontmatter lines written anew, the updated stamp and the new text.
	crlf := wiki.FirstLineCRLF(data)
	newBody = string(wiki.WithLineEnds([]byte(newBody), crlf))
	nd, err := mdoc.MergeFrontmatter(d, fields, []byte(newBody))
	if err != nil {
		return out, err
	}
	nd = wiki.WithLineEnds(nd, crlf)
	if d.BOM {
		nd = append([]byte(mdoc.BOM), nd...)
	}
	// The result must read back as the same kind of page.
	d2, err := mdoc.ParseDoc(rel, nd)
	if err != nil {
		return out, store.Errorf(store.CodeInvalid, "the edit would leave frontmatter that does not parse (%s); nothing was written", store.PublicMessage(err))
	}
	if string(d2.Body) != newBody {
		return out, store.Errorf(store.CodeInvalid, "the edit would make the body start like a frontmatter block; nothing was written")
	}
	out.data, out.changed = nd, true
	return out, nil
}

// fieldsChange reports whether setting fields would change d's frontmatter.
func fieldsChange(d *mdoc.Doc, fields []mdoc.Field) bool {
	for _, f := range fields {
		cur, has := d.Meta[f.Key]
		if f.Value == mdoc.Removed {
			if has {
				return true
			}
			continue
		}
		if !has || fmt.Sprint(cur) != fmt.Sprint(f.Value) {
			return true
		}
	}
	return false
}

// headingIndex finds the heading want ("Setup" or "## Setup") among hs.
// It returns -1 when none matches and an error when several do.
func headingIndex(hs []links.Heading, want string) (int, int, string, error) {
	t := strings.TrimSpace(want)
	level := 0
	for strings.HasPrefix(t, "#") {
		level++
		t = t[1:]
	}
	t = strings.TrimSpace(t)
	key := links.HeadingKey(t)
	var exact, loose []int
	for i, h := range hs {
		if level != 0 && h.Level != level {
			continue
		}
		if strings.TrimSpace(h.Text) == t {
			exact = append(exact, i)
		} else if links.HeadingKey(h.Text) == key {
			loose = append(loose, i)
		}
	}
	m := exact
	if len(m) == 0 {
		m = loose
	}
	switch len(m) {
	case 0:
		return -1, level, t, nil
	case 1:
		return m[0], level, t, nil
	}
	var lines []string
	for _, i := range m {
		lines = append(lines, fmt.Sprint(hs[i].Line))
	}
	return -1, level, t, store.Errorf(store.CodeInvalid, "heading %q appears %d times (lines %s); give its level (like \"## %s\") or use find_replace", t, len(m), strings.Join(lines, ", "), t)
}

func headingList(hs []links.Heading) string {
	if len(hs) == 0 {
		return "the page has no headings"
	}
	var s []string
	for _, h := range hs {
		s = append(s, strings.Repeat("#", h.Level)+" "+h.Text)
	}
	if len(s) > 20 {
		s = append(s[:20], fmt.Sprintf("and %d more", len(s)-20))
	}
	return "its headings: " + strings.Join(s, "; ")
}

// sectionEnd is the offset where the section of heading i ends: the next
// heading of the same or a higher level, or the end of the body.
func sectionEnd(hs []links.Heading, i int, n int) int {
	for j := i + 1; j < len(hs); j++ {
		if hs[j].Level <= hs[i].Level {
			return hs[j].Start
		}
	}
	return n
}

// blankBefore returns s ending in one blank line ("" stays "").
func blankBefore(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if s == "" {
		return ""
	}
	return s + "\n\n"
}

func sectionEdit(body string, hs []links.Heading, op, heading, content string) (string, string, error) {
	i, level, title, err := headingIndex(hs, heading)
	if err != nil {
		return "", "", err
	}
	if i < 0 {
		if op == OpAppend {
			if level == 0 {
				level = 2
			}
			h := strings.Repeat("#", level) + " " + title
			return blankBefore(body) + h + "\n\n" + content + "\n", "added the section \"" + h + "\" at the end", nil
		}
		return "", "", store.Errorf(store.CodeNotFound, "no heading %q in the page; %s", strings.TrimSpace(heading), headingList(hs))
	}
	h := hs[i]
	end := sectionEnd(hs, i, len(body))
	after := body[end:]
	gap := ""
	if after != "" {
		gap = "\n"
	}
	name := strings.Repeat("#", h.Level) + " " + h.Text
	switch op {
	case OpAppend:
		return strings.TrimRight(body[:end], "\r\n") + "\n\n" + content + "\n" + gap + after, "appended to \"" + name + "\"", nil
	case OpReplace:
		head := body[:h.End]
		if !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		if content == "" {
			return head + gap + after, "emptied \"" + name + "\"", nil
		}
		return head + "\n" + content + "\n" + gap + after, "replaced the content of \"" + name + "\"", nil
	case OpInsertBefore:
		return blankBefore(body[:h.Start]) + content + "\n\n" + body[h.Start:], "inserted before \"" + name + "\"", nil
	default: // OpInsertAfter
		return strings.TrimRight(body[:end], "\r\n") + "\n\n" + content + "\n" + gap + after, "inserted after the section \"" + name + "\"", nil
	}
}

func addLinks(rel string, data []byte, bodyStart int, body string, hs []links.Heading, pg *links.Page, want []string, view *links.View) (string, string, []string, error) {
	r := view.Resolver()
	i, _, _, err := headingIndex(hs, "Related")
	if err != nil {
		return "", "", nil, err
	}
	start, end := -1, len(body)
	if i >= 0 {
		start, end = hs[i].Start, sectionEnd(hs, i, len(body))
	}
	have := map[string]bool{}
	if start >= 0 {
		for _, l := range pg.Links {
			if s := l.Start - bodyStart; s >= start && s < end {
				if res := r.Resolve(rel, l.Target); res.Path != "" {
					have[res.Path] = true
				}
			}
		}
	}
	var lines, added, missing []string
	for _, w := range want {
		t := strings.TrimSpace(w)
		t = strings.TrimSuffix(strings.TrimPrefix(t, "[["), "]]")
		alias := ""
		if j := strings.IndexByte(t, '|'); j >= 0 {
			t, alias = strings.TrimSpace(t[:j]), strings.TrimSpace(t[j+1:])
		}
		if t == "" || strings.ContainsAny(t, "#^[]\r\n") || strings.ContainsAny(alias, "[]|\r\n") {
			return "", "", nil, store.Errorf(store.CodeInvalid, "link %q is not a page name; give a slug, title or path, optionally with |shown text", w)
		}
		res := r.Resolve(rel, t)
		if res.Path == "" {
			missing = append(missing, t)
			continue
		}
		if res.Path == rel {
			return "", "", nil, store.Errorf(store.CodeInvalid, "%q is this page itself; a page does not list itself under Related", t)
		}
		if have[res.Path] {
			continue
		}
		have[res.Path] = true
		target, ok := r.ShortestTarget(rel, res.Path, false)
		if !ok {
			target = strings.TrimSuffix(res.Path, ".md")
		}
		link := "[[" + target + "]]"
		if alias != "" && alias != target {
			link = "[[" + target + "|" + alias + "]]"
		}
		lines = append(lines, "- "+link)
		added = append(added, link)
	}
	if len(missing) > 0 {
		return "", "", nil, store.Errorf(store.CodeNotFound, "no page or file is named %s; create it first (write_page) or check the name (search_wiki, list_pages). Nothing was written", quoteList(missing))
	}
	if len(lines) == 0 {
		return body, "the Related section already links to every page given", nil, nil
	}
	block := strings.Join(lines, "\n")
	if start < 0 {
		return blankBefore(body) + "## Related\n\n" + block + "\n", fmt.Sprintf("added a Related section with %d link(s)", len(lines)), added, nil
	}
	before := strings.TrimRight(body[:end], "\r\n")
	sep := "\n\n"
	if last := before[strings.LastIndexByte(before, '\n')+1:]; strings.HasPrefix(strings.TrimSpace(last), "- ") || strings.HasPrefix(strings.TrimSpace(last), "* ") {
		sep = "\n"
	}
	after := body[end:]
	gap := ""
	if after != "" {
		gap = "\n"
	}
	return before + sep + block + "\n" + gap + after, fmt.Sprintf("added %d link(s) to Related", len(lines)), added, nil
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// frontmatterFields validates the keys to merge and returns them sorted.
func frontmatterFields(m map[string]any) ([]mdoc.Field, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []mdoc.Field
	for _, k := range keys {
		v := m[k]
		if k == "" || strings.ContainsAny(k, "\r\n:") || !utf8.ValidString(k) {
			return nil, store.Errorf(store.CodeInvalid, "frontmatter key %q is not a plain name", k)
		}
		switch k {
		case "created", "updated":
			return nil, store.Errorf(store.CodeInvalid, "frontmatter %s is set by the server", k)
		case "title":
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\r\n") || len(s) > 300 {
				return nil, store.Errorf(store.CodeInvalid, "title must be a non-empty line of text (under 300 bytes); renaming the file is move_page's job")
			}
		case "summary":
			if s, ok := v.(string); (!ok && v != nil) || strings.ContainsAny(s, "\r\n") || len(s) > 500 {
				return nil, store.Errorf(store.CodeInvalid, "summary must be one line of text (index.md shows it on one line), under 500 bytes")
			}
		case "tags", "aliases", "sources":
			if v == nil {
				break
			}
			list, ok := stringList(v)
			if !ok {
				return nil, store.Errorf(store.CodeInvalid, "%s must be a list of strings", k)
			}
			for i, s := range list {
				s = strings.TrimSpace(s)
				switch k {
				case "tags":
					s = strings.TrimPrefix(s, "#")
					if s == "" || strings.ContainsAny(s, " \t\r\n,") {
						return nil, store.Errorf(store.CodeInvalid, "tag %q must be one word without spaces or commas (use my-tag)", list[i])
					}
				case "aliases":
					if s == "" || strings.ContainsAny(s, "\r\n") {
						return nil, store.Errorf(store.CodeInvalid, "aliases must be non-empty one-line names")
					}
				case "sources":
					if err := checkSource(s); err != nil {
						return nil, err
					}
				}
				list[i] = s
			}
			v = list
		}
		if v == nil {
			v = mdoc.Removed
		}
		out = append(out, mdoc.Field{Key: k, Value: v})
	}
	return out, nil
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return append([]string(nil), x...), true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case string:
		return []string{x}, true
	}
	return nil, false
}

// checkSource accepts an http(s) URL or a path under sources/.
func checkSource(src string) error {
	if u, err := url.Parse(src); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	rel, err := wiki.CleanPath(src)
	if err != nil || !strings.HasPrefix(rel, "sources/") {
		return store.Errorf(store.CodeInvalid, "source %q must be a path under sources/ (like sources/notes.md) or an http(s) URL", src)
	}
	return nil
}
