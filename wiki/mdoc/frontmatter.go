package mdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/llmwiki/llmwiki/wiki/store"
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

// yamlKeyLine matches a line that looks like the start of a YAML mapping entry.
var yamlKeyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_"'][^:]*:(\s|$)`) })

// maxMetaNodes bounds the values one frontmatter block may expand to
// (aliases included), so a crafted block cannot exhaust memory.
const maxMetaNodes = 100_000

// ParseDoc splits src into frontmatter and body and decodes the frontmatter:
// YAML ("---" … "---", also "---yaml"), TOML ("+++" … "+++", "---toml"), or
// JSON (";;;" … ";;;", "---json", or a JSON object opening the file, as Hugo
// writes it).
//
// The rules, the same for every caller:
//   - a UTF-8 BOM and CRLF line ends are accepted; blank lines before the
//     opening delimiter are skipped;
//   - delimiters are whole lines at column 0 (trailing spaces allowed), so an
//     indented "---" inside a YAML block scalar never closes the block, and a
//     "----" line is a thematic break, not a delimiter;
//   - the body starts after the first closing delimiter: "---" or "----"
//     lines further down belong to the body;
//   - a "---" block that is not a YAML mapping (text, a list, a heading) is a
//     thematic break: the file has no frontmatter and all of it is body;
//   - a block that looks like YAML ("key:" lines) but is never closed, or
//     does not parse, or defines a key twice, is an error (CodeInvalid)
//     naming name and the 1-based line of the file where the problem is.
//     TOML and JSON blocks that do not parse are errors the same way.
//
// YAML timestamps are kept as written ("2024-01-01" stays that string).
// The split is done here, not by adrg/frontmatter: that library trims
// indentation when it looks for the closing delimiter, which would cut a
// block scalar holding "---" in two.
func ParseDoc(name string, src []byte) (*Doc, error) {
	d := &Doc{BodyLine: 1}
	src, d.BOM = TrimBOM(src)
	// Find the first non-blank line.
	off, line := 0, 1
	for off < len(src) {
		end := lineEnd(src, off)
		if len(bytes.TrimSpace(src[off:end])) > 0 {
			break
		}
		off, line = end, line+1
	}
	if off >= len(src) {
		d.Body = src
		return d, nil
	}
	first := string(bytes.TrimRight(src[off:lineEnd(src, off)], " \t\r\n"))
	if strings.HasPrefix(first, "{") {
		return parseJSONObject(name, src, off, line, d)
	}
	var format FrontmatterFormat
	var closing string
	switch first {
	case "---", "---yaml":
		format, closing = FormatYAML, "---"
	case "+++":
		format, closing = FormatTOML, "+++"
	case "---toml":
		format, closing = FormatTOML, "---"
	case ";;;":
		format, closing = FormatJSON, ";;;"
	case "---json":
		format, closing = FormatJSON, "---"
	default:
		d.Body = src
		return d, nil
	}
	blockStart := lineEnd(src, off)
	blockLine := line + 1
	closeAt, restAt, restLine := -1, -1, 0
	for p, l := blockStart, blockLine; p < len(src); l++ {
		e := lineEnd(src, p)
		if string(bytes.TrimRight(src[p:e], " \t\r\n")) == closing {
			closeAt, restAt, restLine = p, e, l+1
			break
		}
		p = e
	}
	if closeAt < 0 {
		block := src[blockStart:]
		if format == FormatYAML && (first == "---" && !startsLikeYAML(block)) {
			d.Body = src // a thematic break
			return d, nil
		}
		return nil, store.Errorf(store.CodeInvalid, "%s: frontmatter opened with '%s' on line %d is never closed; add a '%s' line after the last key", name, first, line, closing)
	}
	block := src[blockStart:closeAt]
	var meta map[string]any
	var err error
	switch format {
	case FormatYAML:
		var isMap bool
		meta, isMap, err = decodeYAMLMeta(block)
		if err != nil {
			if first == "---" && !looksLikeYAML(block) {
				d.Body = src // a thematic break, then text
				return d, nil
			}
			return nil, frontmatterError(name, format, blockLine, err)
		}
		if !isMap {
			d.Body = src
			return d, nil
		}
	case FormatTOML:
		err = toml.Unmarshal(block, &meta)
	case FormatJSON:
		err = json.Unmarshal(block, &meta)
		if err == nil && meta == nil && len(bytes.TrimSpace(block)) > 0 {
			err = errors.New("the block is not a JSON object")
		}
	}
	if err != nil {
		return nil, frontmatterError(name, format, blockLine, withJSONLine(block, err))
	}
	if meta == nil {
		meta = map[string]any{}
	}
	d.Format, d.Block, d.Meta = format, block, normalizeMeta(meta)
	d.Body = src[restAt:]
	d.BodyLine = restLine
	return d, nil
}

// parseJSONObject reads a JSON object that opens the file (Hugo's JSON front
// matter): the body starts on the line after the object's closing brace.
func parseJSONObject(name string, src []byte, off, line int, d *Doc) (*Doc, error) {
	dec := json.NewDecoder(bytes.NewReader(src[off:]))
	dec.UseNumber()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if !looksLikeJSONObject(src[off:]) {
			d.Body = src // text that happens to start with "{"
			return d, nil
		}
		return nil, frontmatterError(name, FormatJSON, line, withJSONLine(src[off:], err))
	}
	end := off + int(dec.InputOffset())
	rest := lineEnd(src, end)
	if len(bytes.TrimSpace(src[end:rest])) > 0 {
		d.Body = src // "{...} more text" on one line is not frontmatter
		return d, nil
	}
	var meta map[string]any
	if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
		d.Body = src
		return d, nil
	}
	d.Format, d.Block, d.Meta = FormatJSON, src[off:end], normalizeMeta(meta)
	d.Body = src[rest:]
	d.BodyLine = 1 + bytes.Count(src[:rest], []byte("\n"))
	return d, nil
}

// looksLikeJSONObject reports text starting with "{" then a quoted key or "}".
func looksLikeJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b[1:], " \t\r\n")
	return len(t) > 0 && (t[0] == '"' || t[0] == '}')
}

// lineEnd returns the offset just past the line starting at off (past its
// "\n", or len(src)).
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

func startsLikeYAML(block []byte) bool {
	for _, l := range strings.Split(string(block), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		return yamlKeyLine().MatchString(l)
	}
	return false
}

func looksLikeYAML(block []byte) bool {
	for _, l := range strings.Split(string(block), "\n") {
		if yamlKeyLine().MatchString(strings.TrimRight(l, "\r")) {
			return true
		}
	}
	return false
}

// lineError is a decoding problem at a 1-based line of the block.
// related, when not 0, is another line of the block that msg names with
// a %d verb.
type lineError struct {
	line    int
	msg     string
	related int
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.text(1)) }

// text is msg with the related line shifted to the file's numbering.
func (e *lineError) text(blockLine int) string {
	if e.related > 0 {
		return fmt.Sprintf(e.msg, blockLine+e.related-1)
	}
	return e.msg
}

// decodeYAMLMeta decodes a YAML block into a map. isMap is false (and err
// nil) when the block is a scalar or a list: then it is not frontmatter. An
// empty block is an empty map.
func decodeYAMLMeta(block []byte) (map[string]any, bool, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(block, &n); err != nil {
		return nil, false, yamlLineError(err)
	}
	if len(n.Content) == 0 {
		return map[string]any{}, true, nil
	}
	root := n.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, false, nil
	}
	budget := maxMetaNodes
	v, err := yamlValue(root, &budget, 0)
	if err != nil {
		return nil, true, err
	}
	return v.(map[string]any), true, nil
}

var yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): `) })

// yamlParserProblems are the messages yaml.v3's parser (not its scanner)
// reports. For those it prints the 0-based line of the construct the
// problem is in, where scanner errors get a 1-based line.
var yamlParserProblems = []string{
	"did not find expected <document start>", "did not find expected <stream-start>",
	"found undefined tag handle", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive",
}

// yamlLineError turns a yaml.v3 error into a lineError with the 1-based
// line of the block the problem is on.
func yamlLineError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	n := 0
	if m := yamlLineRe().FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
		n, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[m[1]:]
	}
	for _, p := range yamlParserProblems {
		if msg == p {
			n++
			break
		}
	}
	if n < 1 {
		n = 1
	}
	return &lineError{line: n, msg: msg}
}

// yamlValue converts a node to map[string]any / []any / scalars. Timestamps
// keep their text. Aliases are followed within budget.
func yamlValue(n *yaml.Node, budget *int, depth int) (any, error) {
	*budget--
	if *budget < 0 || depth > 200 {
		return nil, &lineError{line: n.Line, msg: "the block expands to too many values"}
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlValue(n.Alias, budget, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], budget, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		lines := map[string]int{}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				merges = append(merges, vn)
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &lineError{line: k.Line, msg: "a key must be a plain name, not a list or a mapping"}
			}
			key := k.Value
			if first, dup := lines[key]; dup {
				return nil, &lineError{line: k.Line, msg: fmt.Sprintf("key %q is defined twice (first on line %%d)", key), related: first}
			}
			lines[key] = k.Line
			v, err := yamlValue(vn, budget, depth+1)
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
		for _, m := range merges {
			v, err := yamlValue(m, budget, depth+1)
			if err != nil {
				return nil, err
			}
			var maps []map[string]any
			switch x := v.(type) {
			case map[string]any:
				maps = append(maps, x)
			case []any:
				for _, e := range x {
					if mm, ok := e.(map[string]any); ok {
						maps = append(maps, mm)
					}
				}
			}
			for _, mm := range maps {
				for k, v := range mm {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
			}
		}
		return out, nil
	case yaml.ScalarNode:
		if n.Tag == "!!timestamp" {
			return n.Value, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, &lineError{line: n.Line, msg: strings.TrimPrefix(err.Error(), "yaml: ")}
		}
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(time.RFC3339), nil
		}
		return v, nil
	}
	return nil, nil
}

// withJSONLine turns a JSON syntax error's byte offset into a line of block.
func withJSONLine(block []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(block) {
			off = len(block)
		}
		return &lineError{line: 1 + bytes.Count(block[:off], []byte("\n")), msg: se.Error()}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return errors.New("the block is not a JSON object of keys to values")
	}
	return err
}

var tomlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)line (\d+)`) })

// frontmatterError is the CodeInvalid error for a block that does not
// parse; blockLine is the file line of the block's first line.
func frontmatterError(name string, f FrontmatterFormat, blockLine int, err error) error {
	line := blockLine
	msg := err.Error()
	var le *lineError
	if errors.As(err, &le) {
		line, msg = blockLine+le.line-1, le.text(blockLine)
	} else if m := tomlLineRe().FindStringSubmatch(msg); m != nil && f == FormatTOML {
		if n, e := strconv.Atoi(m[1]); e == nil {
			line = blockLine + n - 1
		}
	}
	msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg, "yaml:"), "toml:"))
	if strings.Contains(msg, "cannot unmarshal") {
		msg = "the block is not a mapping of keys to values"
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return &store.Error{Code: store.CodeInvalid, Msg: fmt.Sprintf("%s: frontmatter is not valid %s (line %d: %s)", name, strings.ToUpper(string(f)), line, msg), Err: err}
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
// result is body alone, unless keep had a block or body opens with a
// delimiter: then an empty block "---\n---\n" comes first, so the body is
// never read as frontmatter.
func RenderDoc(fields []Field, keep *Doc, body []byte) ([]byte, error) {
	set := map[string]bool{}
	root := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		set[f.Key] = true
		if f.Value == Removed {
			continue
		}
		var k yaml.Node
		k.SetString(f.Key)
		v, err := valueNode(f.Value, 0)
		if err != nil {
			return nil, err
		}
		root.Content = append(root.Content, &k, v)
	}
	var kept []byte
	if keep != nil && keep.Format != FormatNone {
		segs, ok := yamlSegments(keep)
		if ok {
			for _, s := range segs {
				if !set[s.key] {
					kept = append(kept, bytes.ReplaceAll(s.text, []byte("\r\n"), []byte("\n"))...)
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
			slices.Sort(keys)
			for _, key := range keys {
				var k yaml.Node
				k.SetString(key)
				v, err := valueNode(keep.Meta[key], 0)
				if err != nil {
					return nil, err
				}
				root.Content = append(root.Content, &k, v)
			}
		}
	}
	if len(root.Content) == 0 && len(kept) == 0 {
		if keep == nil || keep.Format == FormatNone {
			if d, err := ParseDoc("body", body); err == nil && d.Format == FormatNone {
				return body, nil
			}
		}
		// An empty block: the file had one, or the body alone would be read
		// as frontmatter (it opens with a delimiter).
		return append([]byte("---\n---\n"), body...), nil
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(root.Content) > 0 {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(root); err != nil {
			return nil, store.Internal("encode frontmatter", err)
		}
		enc.Close()
	}
	buf.Write(kept)
	buf.WriteString("---\n")
	buf.Write(body)
	return buf.Bytes(), nil
}

// valueNode builds the YAML node of a frontmatter value. Strings are built
// by hand rather than with yaml.Node.Encode, which re-parses what it emits
// and fails on strings such as "\n---\n"; strings with line breaks, control
// or invisible characters, or edge spaces are double-quoted so every byte
// survives.
func valueNode(v any, depth int) (*yaml.Node, error) {
	if depth > 50 {
		return nil, store.Errorf(store.CodeInvalid, "frontmatter value is nested too deeply")
	}
	switch x := v.(type) {
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
		if needsDoubleQuotes(x) || yaml11NotString(x) {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case []string:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			c, _ := valueNode(e, depth+1)
			seq.Content = append(seq.Content, c)
		}
		return seq, nil
	case []any:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			c, err := valueNode(e, depth+1)
			if err != nil {
				return nil, err
			}
			seq.Content = append(seq.Content, c)
		}
		return seq, nil
	case map[string]any:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			kn, _ := valueNode(k, depth+1)
			c, err := valueNode(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, kn, c)
		}
		return m, nil
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = v
		}
		return valueNode(m, depth)
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, store.Internal("encode frontmatter", err)
	}
	return &n, nil
}

// yaml11Plain matches the plain scalars a YAML 1.1 reader (PyYAML,
// js-yaml's default schema, Ruby's Psych) resolves to something other than a
// string: booleans (y, yes, on, off and their cases), null (~, null), ints
// (octal 017, binary, 1_000, sexagesimal 12:30), floats (1., .5, .inf,
// sexagesimal), the merge key << and the value key =. Dates are left out:
// created and updated are meant to be read as timestamps. yaml.v3 quotes
// only what YAML 1.2 would resolve, so a title "yes" came out plain and
// PyYAML read it as true. The expressions are PyYAML's resolver's, with
// YAML 1.1's y and n added.
var yaml11Plain = regexp.MustCompile(`^(?:` +
	`y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF` +
	`|~|null|Null|NULL` +
	`|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+` +
	`|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)` +
	`|<<|=` +
	`)$`)

// yaml11NotString reports whether s, written plain, would not be read back
// as the string s by a YAML 1.1 reader (see [yaml11Plain]).
func yaml11NotString(s string) bool { return yaml11Plain.MatchString(s) }

func needsDoubleQuotes(s string) bool {
	if s == "" {
		return false
	}
	if strings.TrimSpace(s) != s {
		return true
	}
	for _, r := range s {
		if r == utf8.RuneError || r == '\ufeff' || !unicode.IsPrint(r) && r != ' ' {
			return true
		}
	}
	return false
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
		if i == 0 {
			start = 0 // comments above the first key stay with it
		}
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
		var k yaml.Node
		k.SetString(f.Key)
		v, err := valueNode(f.Value, 0)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{&k, v}}); err != nil {
			return nil, store.Internal("encode frontmatter", err)
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
