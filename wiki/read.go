package wiki

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// DefaultReadChars is how many characters read_page returns when the caller
// sets no limit; MaxReadChars is the most it returns in one call.
const (
	DefaultReadChars = 60_000
	MaxReadChars     = 400_000
)

// ReadInput names a file for [Store.Read].
type ReadInput struct {
	// Path is project-relative ("pages/x.md", "sources/a.pdf", "context.md").
	Path string
	// Page names a page instead of Path (see [Store.ResolvePage]).
	Page string
	// FromLine and ToLine select 1-based file lines, inclusive (0 = from the
	// start / to the end).
	FromLine, ToLine int
	// MaxChars caps the characters returned (default [DefaultReadChars]).
	MaxChars int
}

// FileContent is a file as [Store.Read] returns it. Text files carry their
// parsed frontmatter and body (or the selected lines); binary files are
// described (size, media type), never dumped.
type FileContent struct {
	Path   string `json:"path"`
	Layer  Layer  `json:"layer"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Frontmatter is the parsed frontmatter of a markdown file, if any.
	Frontmatter map[string]any `json:"frontmatter,omitempty"`
	// FrontmatterError explains why the frontmatter could not be parsed; the
	// raw text is then in Content.
	FrontmatterError string `json:"frontmatter_error,omitempty"`
	// Content is the text after the frontmatter, or the selected lines when a
	// line range was asked for.
	Content string `json:"content"`
	// FromLine and ToLine are the 1-based file lines Content holds (when a range
	// was asked for or the text was cut at MaxChars).
	FromLine int `json:"from_line,omitempty"`
	ToLine   int `json:"to_line,omitempty"`
	// TotalLines is the number of lines in the whole file.
	TotalLines int `json:"total_lines"`
	// Truncated is true when Content stops before the end; read on from
	// NextFromLine.
	Truncated    bool `json:"truncated,omitempty"`
	NextFromLine int  `json:"next_from_line,omitempty"`
	// Binary is true for files that are not text (see [mdoc.DecodeText]): they
	// are described (size, media type), never shown.
	Binary    bool   `json:"binary,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	// Encoding names the encoding text was decoded from when it is not
	// UTF-8 ("utf-16le", "windows-1252"); Content is then the decoded text.
	Encoding string `json:"encoding,omitempty"`
	// EncodingUncertain is set when the encoding could not be determined
	// (see [mdoc.Decoded].Uncertain): Encoding is a guess and Content may be
	// garbled; Note says so.
	EncodingUncertain bool `json:"encoding_uncertain,omitempty"`
	// Note says what was done to the file to show it (decoded, a line cut).
	Note string `json:"note,omitempty"`
}

// Read returns a file of the wiki: a page, source, context.md, index.md,
// schema.md, guidelines.md or log.md, or a stored version of one under
// .llmwiki/snapshots/. Other files under .llmwiki/ are refused.
func (s *Store) Read(ctx context.Context, in ReadInput) (FileContent, error) {
	var out FileContent
	rel, err := s.resolveReadTarget(in)
	if err != nil {
		return out, err
	}
	if rel == "index.md" {
		// A regeneration left for after the writes is written now, so a
		// reader sees the pages written before it.
		if err := s.FlushIndex(ctx); err != nil {
			store.CallFrom(ctx).AddWarning("index.md may not list the latest pages: " + store.PublicMessage(err))
		}
	}
	data, ok, err := s.ReadRaw(rel)
	if err != nil {
		return out, err
	}
	if !ok {
		hint := "use list_pages or search_wiki to find it"
		if LayerOf(rel) == LayerSources || LayerOf(rel) == LayerResearch {
			hint = "use gather_sources with mode \"all\" to list sources"
		}
		return out, store.Errorf(store.CodeNotFound, "%s not found; %s", rel, hint)
	}
	store.CallFrom(ctx).AddRead(rel)
	return readContent(rel, data, in)
}

// ReadVersion returns data, an earlier version of the file rel (a git
// commit's copy), as [Store.Read] returns a file: same decoding, line
// ranges and caps. The caller resolved rel and read data.
func (s *Store) ReadVersion(ctx context.Context, rel string, data []byte, in ReadInput) (FileContent, error) {
	store.CallFrom(ctx).AddRead(rel)
	return readContent(rel, data, in)
}

// readContent is the shared body of [Store.Read] and [Store.ReadVersion].
func readContent(rel string, data []byte, in ReadInput) (FileContent, error) {
	out := FileContent{Path: rel, Layer: LayerOf(rel), SHA256: store.SHA256Hex(data), Size: int64(len(data))}
	dec := mdoc.Decode(data)
	if dec.Binary {
		out.Binary = true
		out.MediaType = MediaType(rel, data)
		out.Note = "binary file: described, not shown"
		return out, nil
	}
	out.Encoding, out.EncodingUncertain, out.Note = dec.Encoding, dec.Uncertain, dec.Note()
	data = dec.Text
	out.TotalLines = countLines(data)
	max := in.MaxChars
	if max <= 0 {
		max = DefaultReadChars
	}
	if max > MaxReadChars {
		max = MaxReadChars
	}
	if in.FromLine < 0 || in.ToLine < 0 || (in.ToLine > 0 && in.ToLine < in.FromLine) {
		return out, store.Errorf(store.CodeInvalid, "line range %d-%d is not valid; lines are numbered from 1", in.FromLine, in.ToLine)
	}
	if in.FromLine == 0 && in.ToLine == 0 && strings.HasSuffix(rel, ".md") {
		d, perr := mdoc.ParseDoc(rel, data)
		if perr == nil {
			out.Frontmatter = d.Meta
			if utf8.RuneCount(d.Body) <= max {
				out.Content = string(d.Body)
				return out, nil
			}
			in.FromLine = d.BodyLine
		} else {
			out.FrontmatterError = store.PublicMessage(perr)
		}
	}
	from := in.FromLine
	if from == 0 {
		from = 1
	}
	if from > out.TotalLines && out.TotalLines > 0 {
		return out, store.Errorf(store.CodeInvalid, "from_line %d is past the end (%d lines)", from, out.TotalLines)
	}
	to := in.ToLine
	if to == 0 || to > out.TotalLines {
		to = out.TotalLines
	}
	body, last, cut := selectLines(data, from, to, max)
	out.Content, out.FromLine, out.ToLine = body, from, last
	if cut && last == from && utf8.RuneCountInString(body) >= max {
		n := utf8.RuneCount(lineAt(data, from))
		note := fmt.Sprintf("line %d has %d characters; only its first %d are shown (search_wiki finds text further in)", from, n, max)
		if out.Note != "" {
			note = out.Note + "; " + note
		}
		out.Note = note
	}
	if cut || last < out.TotalLines && in.ToLine == 0 {
		out.Truncated = cut
		if last < out.TotalLines {
			out.NextFromLine = last + 1
			out.Truncated = true
		}
	}
	return out, nil
}

func (s *Store) resolveReadTarget(in ReadInput) (string, error) {
	if in.Path == "" && in.Page == "" {
		return "", store.Errorf(store.CodeInvalid, "give a path (like \"pages/topic.md\" or \"context.md\") or a page slug")
	}
	if in.Path == "" {
		return s.ResolvePage(in.Page)
	}
	rel, err := CleanPath(in.Path)
	if err != nil {
		return "", err
	}
	switch LayerOf(rel) {
	case LayerState:
		if _, ok := store.ParseSnapshotPath(rel); ok {
			return rel, nil // a stored version: history, readable like the file it was
		}
		return "", store.Errorf(store.CodeInvalid, "%s is the server's own state, not part of the wiki", rel)
	case LayerPages:
		if _, err := s.root.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
			if p, err := s.ResolvePage(rel); err == nil {
				return p, nil
			}
		}
	case LayerOther:
		if !strings.Contains(rel, "/") && !strings.HasSuffix(rel, ".md") {
			if p, err := s.ResolvePage(rel); err == nil {
				return p, nil
			}
		}
	}
	return rel, nil
}

// selectLines returns lines from..to of data (1-based, inclusive), cut at max
// characters on a line boundary (at least one line, itself cut if longer).
func selectLines(data []byte, from, to, max int) (string, int, bool) {
	var b strings.Builder
	line, chars := 1, 0
	start := 0
	for start <= len(data) && line <= to {
		end := len(data)
		if i := strings.IndexByte(string(data[start:]), '\n'); i >= 0 {
			end = start + i + 1
		}
		if line >= from {
			seg := string(data[start:end])
			n := utf8.RuneCountInString(seg)
			if chars+n > max {
				if b.Len() == 0 {
					b.WriteString(truncateRunes(seg, max))
					return b.String(), line, true
				}
				return b.String(), line - 1, true
			}
			b.WriteString(seg)
			chars += n
		}
		if end == len(data) {
			break
		}
		start = end
		line++
	}
	if line > to {
		line = to
	}
	return b.String(), line, false
}

// lineAt returns line n (1-based) of data, without its newline.
func lineAt(data []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		return data[:j]
	}
	return data
}

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func countLines(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	n := strings.Count(string(data), "\n")
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// MediaType guesses a file's media type from its extension, then its bytes.
func MediaType(rel string, data []byte) string {
	if t := mime.TypeByExtension(path.Ext(rel)); t != "" {
		return t
	}
	return http.DetectContentType(data)
}
