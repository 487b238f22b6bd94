package wiki

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"
)

// FrontmatterFormat names the syntax of a frontmatter block.
type FrontmatterFormat string

// The frontmatter formats [ParseDoc] reads. Pages are always written as YAML.
const (
	FormatNone FrontmatterFormat = ""
	FormatYAML FrontmatterFormat = "yaml" // --- ... ---
	FormatTOML FrontmatterFormat = "toml" // +++ ... +++
	FormatJSON FrontmatterFormat = "json" // { ... } or ;;; ... ;;;
)

// Doc is a markdown file split at its frontmatter.
type Doc struct {
	// Format is the frontmatter syntax, FormatNone when the file has none.
	Format FrontmatterFormat
	// Block is the frontmatter text between the delimiters, as on disk.
	Block []byte
	// Meta is the parsed frontmatter (nil when there is none). Keys are
	// strings; values are what the YAML, TOML or JSON decoder produced.
	Meta map[string]any
	// Body is everything after the frontmatter's closing delimiter.
	Body []byte
	// BodyLine is the 1-based line number of the first line of Body.
	BodyLine int
	// BOM reports a UTF-8 byte order mark at the start of the file.
	BOM bool
}

var bom = []byte("\xef\xbb\xbf")

// yamlKeyLine matches a line that looks like the start of a YAML mapping entry.
var yamlKeyLine = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_ -]*:(\s|$)`)

// ParseDoc splits src into frontmatter and body using adrg/frontmatter for
// delimiter detection, and decodes YAML (gopkg.in/yaml.v3), TOML or JSON.
//
// A UTF-8 BOM and CRLF line ends are accepted. A block that opens with "---"
// but is never closed, or whose YAML does not parse, is an error
// (CodeInvalid) naming name and the 1-based line of the problem, unless it
// does not look like YAML at all (no "key:" line), in which case the "---" is
// a thematic break and the whole file is body.
func ParseDoc(name string, src []byte) (*Doc, error) {
	d := &Doc{BodyLine: 1}
	if bytes.HasPrefix(src, bom) {
		d.BOM = true
		src = src[len(bom):]
	}
	var block []byte
	var format FrontmatterFormat
	capture := func(f FrontmatterFormat, un func([]byte, any) error) frontmatter.UnmarshalFunc {
		return func(b []byte, v any) error {
			block, format = b, f
			return un(b, v)
		}
	}
	yamlUn := func(b []byte, v any) error { return yaml.Unmarshal(b, v) }
	formats := []*frontmatter.Format{
		frontmatter.NewFormat("---", "---", capture(FormatYAML, yamlUn)),
		frontmatter.NewFormat("---yaml", "---", capture(FormatYAML, yamlUn)),
		frontmatter.NewFormat("+++", "+++", capture(FormatTOML, toml.Unmarshal)),
		frontmatter.NewFormat("---toml", "---", capture(FormatTOML, toml.Unmarshal)),
		frontmatter.NewFormat(";;;", ";;;", capture(FormatJSON, json.Unmarshal)),
		frontmatter.NewFormat("---json", "---", capture(FormatJSON, json.Unmarshal)),
		{Start: "{", End: "}", Unmarshal: capture(FormatJSON, json.Unmarshal), UnmarshalDelims: true, RequiresNewLine: true},
	}
	var meta map[string]any
	rest, err := frontmatter.Parse(bytes.NewReader(src), &meta, formats...)
	if err != nil {
		if format == FormatYAML && !looksLikeYAML(block) {
			// A thematic break, not frontmatter.
			d.Body = src
			return d, nil
		}
		return nil, frontmatterError(name, src, block, format, err)
	}
	if format == FormatNone {
		if unclosedYAML(src) {
			return nil, Errorf(CodeInvalid, "%s: frontmatter opened with '---' on line %d is never closed; add a '---' line after the last key", name, firstLine(src))
		}
		d.Body = src
		return d, nil
	}
	if meta == nil {
		meta = map[string]any{}
	}
	d.Format, d.Block, d.Meta = format, block, normalizeMeta(meta)
	d.Body = rest
	d.BodyLine = 1 + bytes.Count(src[:len(src)-len(rest)], []byte("\n"))
	return d, nil
}

func firstLine(src []byte) int {
	n := 1
	for _, l := range bytes.SplitAfter(src, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			return n
		}
		n++
	}
	return n
}

func looksLikeYAML(block []byte) bool {
	for _, l := range strings.Split(string(block), "\n") {
		if yamlKeyLine.MatchString(strings.TrimRight(l, "\r")) {
			return true
		}
	}
	return false
}

// unclosedYAML reports a file whose first non-blank line is "---" followed by
// "key: value" lines and no closing "---".
func unclosedYAML(src []byte) bool {
	lines := strings.Split(string(src), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || strings.TrimSpace(lines[i]) != "---" || i+1 >= len(lines) {
		return false
	}
	return yamlKeyLine.MatchString(strings.TrimRight(lines[i+1], "\r"))
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

func frontmatterError(name string, src, block []byte, f FrontmatterFormat, err error) error {
	if f == FormatNone {
		f = FormatYAML
	}
	msg := err.Error()
	line := firstLine(src)
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil {
			line += n
		}
		msg = yamlLineRe.ReplaceAllString(msg, "")
	}
	msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg, "yaml:"), "toml:"))
	msg = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(msg, ":")), ": ")
	if strings.Contains(msg, "cannot unmarshal") {
		msg = "the block is not a mapping of keys to values"
	}
	return &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%s: frontmatter is not valid %s (line %d: %s)", name, strings.ToUpper(string(f)), line, msg), Err: err}
}

// normalizeMeta turns nested map[any]any and time values into JSON-friendly
// values: map[string]any, []any, strings, numbers, bools.
func normalizeMeta(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = normalizeValue(v)
	}
	return out
}

func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return normalizeMeta(x)
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[fmt.Sprint(k)] = normalizeValue(v)
		}
		return m
	case []any:
		for i := range x {
			x[i] = normalizeValue(x[i])
		}
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	}
	return v
}

// Field is one frontmatter key and its value, for [RenderDoc].
type Field struct {
	Key   string
	Value any
}

type removed struct{}

// Removed as a [Field] value removes the key: it is neither emitted nor kept
// from the previous version.
var Removed any = removed{}

// RenderDoc renders a markdown file: a YAML frontmatter block made of fields
// (in order, emitted by a YAML marshaller so any string round-trips), then
// the keys of keep that fields do not set, then body.
//
// When keep has a YAML block mapping, each kept key's lines are copied byte for
// byte, comments and quoting included. Keys from TOML or JSON frontmatter are
// re-encoded as YAML. keep may be nil. With no fields and nothing kept, the
// result is body alone.
func RenderDoc(fields []Field, keep *Doc, body []byte) ([]byte, error) {
	set := map[string]bool{}
	root := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		set[f.Key] = true
		if f.Value == Removed {
			continue
		}
		var k, v yaml.Node
		k.SetString(f.Key)
		if err := v.Encode(f.Value); err != nil {
			return nil, internal("encode frontmatter", err)
		}
		root.Content = append(root.Content, &k, &v)
	}
	var kept []byte
	if keep != nil && keep.Format != FormatNone {
		segs, ok := yamlSegments(keep)
		if ok {
			for _, s := range segs {
				if !set[s.key] {
					kept = append(kept, s.text...)
					if len(s.text) > 0 && s.text[len(s.text)-1] != '\n' {
						kept = append(kept, '\n')
					}
				}
			}
		} else {
			keys := make([]string, 0, len(keep.Meta))
			for k := range keep.Meta {
				if !set[k] {
					keys = append(keys, k)
				}
			}
			sortStrings(keys)
			for _, key := range keys {
				var k, v yaml.Node
				k.SetString(key)
				if err := v.Encode(keep.Meta[key]); err != nil {
					return nil, internal("encode frontmatter", err)
				}
				root.Content = append(root.Content, &k, &v)
			}
		}
	}
	if len(root.Content) == 0 && len(kept) == 0 {
		return body, nil
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(root.Content) > 0 {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(root); err != nil {
			return nil, internal("encode frontmatter", err)
		}
		enc.Close()
	}
	buf.Write(kept)
	buf.WriteString("---\n")
	buf.Write(body)
	return buf.Bytes(), nil
}

type yamlSegment struct {
	key  string
	text []byte
}

// yamlSegments cuts a YAML block mapping into the raw lines of each top-level
// key. ok is false when the block is not YAML or not a block mapping.
func yamlSegments(d *Doc) ([]yamlSegment, bool) {
	if d.Format != FormatYAML {
		return nil, false
	}
	var n yaml.Node
	if err := yaml.Unmarshal(d.Block, &n); err != nil || len(n.Content) == 0 {
		return nil, len(bytes.TrimSpace(d.Block)) == 0
	}
	m := n.Content[0]
	if m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	lines := bytes.SplitAfter(d.Block, []byte("\n"))
	var segs []yamlSegment
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Column != 1 {
			return nil, false
		}
		start := k.Line - 1
		end := len(lines)
		if i+2 < len(m.Content) {
			end = m.Content[i+2].Line - 1
		}
		if start < 0 || end > len(lines) || start > end {
			return nil, false
		}
		segs = append(segs, yamlSegment{key: k.Value, text: bytes.Join(lines[start:end], nil)})
	}
	return segs, true
}

// MetaString returns the frontmatter value of key as a string ("" when absent
// or not a scalar).
func MetaString(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return v
	case nil:
		return ""
	case int, int64, float64, bool:
		return fmt.Sprint(v)
	}
	return ""
}

// MetaList returns the frontmatter value of key as a list of strings. A
// single string is split on commas (Obsidian accepts "tags: a, b").
func MetaList(m map[string]any, key string) []string {
	switch v := m[key].(type) {
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if x == nil {
				continue
			}
			if s := strings.TrimSpace(fmt.Sprint(x)); s != "" {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return v
	case string:
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// MergeFrontmatter renders a markdown file from d with the frontmatter keys
// in set changed in place: a key d already has keeps its position (only its
// lines change), a new key is added at the end, a key whose value is
// [Removed] is dropped, and every other line of the block (comments
// included) is kept byte for byte. body follows the block. When d has no
// frontmatter a YAML block of set is created; frontmatter that is not a YAML
// block mapping (TOML, JSON, flow style) is re-encoded by [RenderDoc].
func MergeFrontmatter(d *Doc, set []Field, body []byte) ([]byte, error) {
	if d == nil || d.Format == FormatNone {
		var fs []Field
		for _, f := range set {
			if f.Value != Removed {
				fs = append(fs, f)
			}
		}
		return RenderDoc(fs, nil, body)
	}
	segs, ok := yamlSegments(d)
	if !ok {
		return RenderDoc(set, d, body)
	}
	encode := func(f Field) ([]byte, error) {
		var k, v yaml.Node
		k.SetString(f.Key)
		if err := v.Encode(f.Value); err != nil {
			return nil, internal("encode frontmatter", err)
		}
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{&k, &v}}); err != nil {
			return nil, internal("encode frontmatter", err)
		}
		enc.Close()
		return b.Bytes(), nil
	}
	want := map[string]Field{}
	for _, f := range set {
		want[f.Key] = f
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(segs) > 0 {
		// Lines before the first key (comments) stay.
		if i := bytes.Index(d.Block, segs[0].text); i > 0 {
			buf.Write(d.Block[:i])
		}
	}
	done := map[string]bool{}
	for _, s := range segs {
		f, ok := want[s.key]
		if !ok {
			buf.Write(s.text)
			if len(s.text) > 0 && s.text[len(s.text)-1] != '\n' {
				buf.WriteByte('\n')
			}
			continue
		}
		done[s.key] = true
		if f.Value == Removed {
			continue
		}
		b, err := encode(f)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	for _, f := range set {
		if done[f.Key] || f.Value == Removed {
			continue
		}
		done[f.Key] = true
		b, err := encode(f)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteString("---\n")
	buf.Write(body)
	return buf.Bytes(), nil
}
