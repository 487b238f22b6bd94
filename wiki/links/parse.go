package links

import (
	"bytes"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/llmwiki/llmwiki/internal/shingle"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/wikilink"
)

// Kind is the syntax of a link.
type Kind string

// The link syntaxes [Parse] reports.
const (
	KindWiki     Kind = "wikilink" // [[target#heading|alias]], ![[embed]]
	KindMarkdown Kind = "markdown" // [text](target.md#heading), ![alt](image.png)
)

// Link is one link found in a file.
type Link struct {
	Kind Kind `json:"kind"`
	// Embed is true for ![[x]] and ![alt](x).
	Embed bool `json:"embed,omitempty"`
	// Raw is the link exactly as written: "[[Foo#Bar|baz]]", "[t](Foo.md)".
	Raw string `json:"raw"`
	// Target is the file part as written, without heading, block or alias
	// ("Foo", "en/Foo.md", "../x.png"); markdown destinations are
	// percent-decoded. "" means the linking file itself ([[#Heading]]).
	Target string `json:"target"`
	// Headings is the heading chain after "#" (["Questions", "Report bugs"]
	// for [[t#Questions#Report bugs]]); nil when there is none.
	Headings []string `json:"headings,omitempty"`
	// Block is the block id after "#^" or "^" ("" when there is none).
	Block string `json:"block,omitempty"`
	// Label is the alias after "|" of a wikilink, or a markdown link's text.
	Label string `json:"label,omitempty"`
	// Line is the 1-based line of the file where the link starts.
	Line int `json:"line"`
	// InFrontmatter is true for a wikilink that is a frontmatter value.
	InFrontmatter bool `json:"in_frontmatter,omitempty"`
	// Reference is true for a markdown reference link ([x][ref]); its
	// destination is written in the definition, not at the link.
	Reference bool `json:"reference,omitempty"`

	// Start and End are the byte offsets of Raw in the file.
	Start int `json:"-"`
	End   int `json:"-"`
	// TargetStart and TargetEnd are the byte offsets of the target as
	// written (still percent-encoded in a markdown link); both are -1 when
	// the target cannot be rewritten in place (reference links).
	TargetStart int `json:"-"`
	TargetEnd   int `json:"-"`
}

// Fragment returns the link's heading chain and block id as written after
// the target: "#A#B", "#^id", or "".
func (l Link) Fragment() string {
	var b strings.Builder
	for _, h := range l.Headings {
		b.WriteString("#" + h)
	}
	if l.Block != "" {
		b.WriteString("#^" + l.Block)
	}
	return b.String()
}

// Heading is one heading of a markdown file (ATX or setext).
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
	// Start is the byte offset of the heading's first line; End is the
	// offset just after its last line (a setext underline included).
	Start int `json:"-"`
	End   int `json:"-"`
}

// Page is what [Parse] finds in one markdown file.
type Page struct {
	Links    []Link    `json:"links"`
	Headings []Heading `json:"headings"`
	// Blocks are the block ids defined in the file ("^id" ending a paragraph
	// or list item, or alone on a line after a block).
	Blocks []string `json:"blocks,omitempty"`
	// Aliases are the frontmatter aliases (and the legacy "alias" key).
	Aliases []string `json:"aliases,omitempty"`
	// Keys are the frontmatter keys whose value is not empty, sorted.
	Keys []string `json:"keys,omitempty"`
	// BodyStart is the byte offset of the markdown after the frontmatter.
	BodyStart int `json:"-"`
	// FrontmatterError explains why the frontmatter did not parse; the
	// whole file was then read as markdown.
	FrontmatterError string `json:"frontmatter_error,omitempty"`
	// Lines is the number of lines in the file.
	Lines int `json:"lines"`
	// Info is the catalogue entry of a file under pages/ (as
	// [wiki.Store.Pages] gives it); nil for other files.
	Info *wiki.PageInfo `json:"-"`
	// Sketch is the MinHash sketch of a page's body (after the
	// frontmatter), for near-duplicate detection; nil for other files.
	Sketch *shingle.Sketch `json:"-"`

	// keys holds each heading's HeadingKey and GitHub anchor, computed the
	// first time a link into the file names a heading (few files are such
	// targets) and kept: links into it are checked every time the view is
	// built.
	keys atomic.Pointer[headingKeys]
}

type headingKeys struct{ keys, anchors []string }

// headingIndex returns each heading's HeadingKey and GitHub anchor.
func (pg *Page) headingIndex() *headingKeys {
	if k := pg.keys.Load(); k != nil && len(k.keys) == len(pg.Headings) {
		return k
	}
	k := &headingKeys{keys: make([]string, len(pg.Headings)), anchors: make([]string, len(pg.Headings))}
	for i, h := range pg.Headings {
		k.keys[i], k.anchors[i] = HeadingKey(h.Text), githubSlug(h.Text)
	}
	// Two callers may race to compute them: both results are the same.
	pg.keys.Store(k)
	return k
}

var (
	spanKey  = parser.NewContextKey()
	plainKey = parser.NewContextKey() // plainBlocks' node
	mdParser parser.Parser
	// blockParser is mdParser without inline parsers: for a body with no
	// "[" (so no link of any kind), whose headings and block ids come from
	// the blocks' lines alone, it gives the same blocks at a fraction of
	// the cost (most tldr pages).
	blockParser parser.Parser
	// linkBlocksParser is mdParser that hands the inline parsers only the
	// blocks holding a "[" (plainBlocks), for [parseLean].
	linkBlocksParser parser.Parser
	emptyLinks       = []Link{}
)

type spans map[ast.Node][2]int // node -> [close or start, end) byte offsets

func recordSpan(pc parser.Context, n ast.Node, a, b int) {
	m, _ := pc.Get(spanKey).(spans)
	if m == nil {
		m = spans{}
		pc.Set(spanKey, m)
	}
	m[n] = [2]int{a, b}
}

// wikiParser is the wikilink extension's parser, recording where each link
// ends so a link can be rewritten in place.
type wikiParser struct{ inner wikilink.Parser }

// Trigger implements parser.InlineParser: "[" and "!".
func (p *wikiParser) Trigger() []byte { return p.inner.Trigger() }

// Parse implements parser.InlineParser.
func (p *wikiParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	_, seg := block.PeekLine()
	n := p.inner.Parse(parent, block, pc)
	if n != nil {
		_, after := block.Position()
		recordSpan(pc, n, seg.Start, after.Start)
	}
	return n
}

// linkParser is goldmark's link parser, recording where the "](dest)" part
// of each inline link starts and ends.
type linkParser struct{ inner parser.InlineParser }

// Trigger implements parser.InlineParser: "[", "!" and "]".
func (p *linkParser) Trigger() []byte { return p.inner.Trigger() }

// Parse implements parser.InlineParser.
func (p *linkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	n := p.inner.Parse(parent, block, pc)
	if n != nil && len(line) > 0 && line[0] == ']' {
		_, after := block.Position()
		recordSpan(pc, n, seg.Start, after.Start)
	}
	return n
}

// CloseBlock passes the end of a block on to goldmark's link parser, which
// drops the link labels left open in it.
func (p *linkParser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if cb, ok := p.inner.(parser.CloseBlocker); ok {
		cb.CloseBlock(parent, block, pc)
	}
}

func init() {
	ips := []util.PrioritizedValue{
		util.Prioritized(parser.NewCodeSpanParser(), 100),
		// [^1] is a footnote, not a link (Obsidian reads footnotes).
		util.Prioritized(extension.NewFootnoteParser(), 101),
		// Below 200 so "[[" reaches it before the markdown link parser.
		util.Prioritized(&wikiParser{}, 199),
		util.Prioritized(&linkParser{inner: parser.NewLinkParser()}, 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
		util.Prioritized(parser.NewEmphasisParser(), 500),
	}
	blocks := func() []parser.Option {
		return []parser.Option{
			parser.WithBlockParsers(append(parser.DefaultBlockParsers(),
				util.Prioritized(extension.NewFootnoteBlockParser(), 999))...),
			parser.WithASTTransformers(util.Prioritized(extension.NewFootnoteASTTransformer(), 999)),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		}
	}
	mdParser = parser.NewParser(append(blocks(), parser.WithInlineParsers(ips...))...)
	blockParser = parser.NewParser(blocks()...)
	lean := append([]util.PrioritizedValue{util.Prioritized(plainBlocks{}, 0)}, ips...)
	linkBlocksParser = parser.NewParser(append(blocks(), parser.WithInlineParsers(lean...))...)
}

// plainTriggers are the bytes at which goldmark may start an inline parser:
// a space stands for the start of a line that begins with neither a space
// nor punctuation.
var plainTriggers = func() []byte {
	b := []byte{' '}
	for c := 0; c < 128; c++ {
		if util.IsPunct(byte(c)) {
			b = append(b, byte(c))
		}
	}
	return b
}()

// plainBlocks is an inline parser tried before all others. At the start of
// a block with no "[" in its lines it takes the whole block as one text
// node: such a block holds no link, image, wikilink or embed, and its
// heading text and block id are read from its lines, so what parseBody
// finds in it is the same without the inline parsers (which make a node for
// every line and span). Anywhere else it declines at once, and goldmark
// parses as mdParser does.
type plainBlocks struct{}

// Trigger implements parser.InlineParser.
func (plainBlocks) Trigger() []byte { return plainTriggers }

// Parse implements parser.InlineParser.
func (plainBlocks) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	lines := parent.Lines()
	if lines.Len() == 0 || parent.HasChildren() {
		return nil
	}
	_, seg := block.PeekLine()
	if seg.Start != lines.At(0).Start {
		return nil
	}
	src := block.Source()
	for i := 0; i < lines.Len(); i++ {
		if seg := lines.At(i); bytes.IndexByte(seg.Value(src), '[') >= 0 {
			return nil
		}
	}
	for line, _ := block.PeekLine(); line != nil; line, _ = block.PeekLine() {
		block.AdvanceLine()
	}
	// One node serves every plain block of a parse, taken from the block
	// it was last given to: parseBody reads nothing from it, and a node
	// per block would be most of this parse's allocations.
	n, _ := pc.Get(plainKey).(*ast.Text)
	if n == nil {
		n = ast.NewText()
		pc.Set(plainKey, n)
	} else if p := n.Parent(); p != nil {
		p.RemoveChild(p, n)
	}
	n.Segment = text.NewSegment(seg.Start, lines.At(lines.Len()-1).Stop)
	return n
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	idx := make(lineIndex, 1, bytes.Count(data, []byte{'\n'})+1)
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) line(off int) int {
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}

// Parse reads one markdown file (frontmatter included) and returns its
// links, headings, block ids and aliases. rel names the file in messages. It
// never fails: a frontmatter block that does not parse is reported in
// FrontmatterError and the whole file is read as markdown.
func Parse(rel string, data []byte) *Page { return parse(rel, data, false) }

// parseLean is [Parse] for a one-shot reader ([Graph.Detach]): the same
// Page, from a parse whose inline parsers see only the blocks that hold a
// "[" (plainBlocks).
func parseLean(rel string, data []byte) *Page { return parse(rel, data, true) }

func parse(rel string, data []byte, lean bool) *Page {
	pg := &Page{Links: emptyLinks, Headings: []Heading{}}
	li := newLineIndex(data)
	if len(data) > 0 {
		pg.Lines = len(li)
	}
	body := data
	var d *mdoc.Doc
	var err error
	if mayHaveFrontmatter(data) {
		d, err = mdoc.ParseDoc(rel, data)
	} else {
		// What ParseDoc returns for a file without frontmatter, without its cost.
		d = &mdoc.Doc{BodyLine: 1}
		d.Body, d.BOM = mdoc.TrimBOM(data)
	}
	if wiki.LayerOf(rel) == wiki.LayerPages {
		info := wiki.PageInfoOf(rel, d, err)
		pg.Info = &info
	}
	if err != nil {
		pg.FrontmatterError = store.PublicMessage(err)
	} else if d.Format != mdoc.FormatNone && bytes.HasSuffix(data, d.Body) {
		pg.BodyStart = len(data) - len(d.Body)
		body = data[pg.BodyStart:]
		pg.Aliases = append(mdoc.MetaList(d.Meta, "aliases"), mdoc.MetaList(d.Meta, "alias")...)
		for k, v := range d.Meta {
			if !emptyValue(v) {
				pg.Keys = append(pg.Keys, k)
			}
		}
		sort.Strings(pg.Keys)
		pg.Links = frontmatterLinks(d.Meta, data[:pg.BodyStart], li)
	}
	parseBody(pg, data, body, li, lean)
	if pg.Info != nil {
		sk := shingle.Of(body)
		pg.Sketch = &sk
	}
	return pg
}

// mayHaveFrontmatter reports whether data could start with a frontmatter
// block (after a byte order mark and blank lines: "---", "+++", ";;;" or
// "{"); most markdown files cannot, and skip the frontmatter parser.
func mayHaveFrontmatter(data []byte) bool {
	data, _ = mdoc.TrimBOM(data)
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return false
	}
	switch data[0] {
	case '-', '+', ';', '{':
		return true
	}
	return false
}

// emptyValue reports a frontmatter value that says nothing: null, "", [] or {}.
func emptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func parseBody(pg *Page, file, body []byte, li lineIndex, lean bool) {
	off := pg.BodyStart
	pc := parser.NewContext()
	p := mdParser
	switch {
	case lean:
		p = linkBlocksParser
	case bytes.IndexByte(body, '[') < 0:
		p = blockParser
	}
	doc := p.Parse(text.NewReader(body), parser.WithContext(pc))
	sp, _ := pc.Get(spanKey).(spans)
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *wikilink.Node:
			s, ok := sp[n]
			if !ok {
				return ast.WalkSkipChildren, nil
			}
			if l, ok := wikiLink(body, s[0], s[1], x.Embed); ok {
				l.shift(off)
				l.Line = li.line(l.Start)
				pg.Links = append(pg.Links, l)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if l, ok := markdownLink(body, n, string(x.Destination), x.Reference != nil, false, sp); ok {
				l.shift(off)
				l.Line = li.line(l.Start)
				pg.Links = append(pg.Links, l)
			}
		case *ast.Image:
			if l, ok := markdownLink(body, n, string(x.Destination), x.Reference != nil, true, sp); ok {
				l.shift(off)
				l.Line = li.line(l.Start)
				pg.Links = append(pg.Links, l)
			}
		case *ast.Heading:
			if h, ok := heading(body, x); ok {
				h.Start += off
				h.End += off
				h.Line = li.line(h.Start)
				pg.Headings = append(pg.Headings, h)
			}
		case *ast.Paragraph, *ast.TextBlock:
			if id := blockID(body, n); id != "" {
				pg.Blocks = append(pg.Blocks, id)
			}
		}
		return ast.WalkContinue, nil
	})
	sort.SliceStable(pg.Links, func(i, j int) bool { return pg.Links[i].Start < pg.Links[j].Start })
}

func (l *Link) shift(off int) {
	l.Start += off
	l.End += off
	if l.TargetStart >= 0 {
		l.TargetStart += off
		l.TargetEnd += off
	}
}

// wikiLink builds the link written at src[start:end] ("[[...]]" or
// "![[...]]"). ok is false for links that name nothing: [[#]], [[ ]], [[|x]].
func wikiLink(src []byte, start, end int, embed bool) (Link, bool) {
	open := 2
	if embed {
		open = 3
	}
	if end-start < open+2 || end > len(src) {
		return Link{}, false
	}
	inner := string(src[start+open : end-2])
	p, ok := splitWiki(inner)
	if !ok {
		return Link{}, false
	}
	return Link{
		Kind: KindWiki, Embed: embed, Raw: string(src[start:end]),
		Target: p.target, Headings: p.headings, Block: p.block, Label: p.label,
		Start: start, End: end,
		TargetStart: start + open + p.tStart, TargetEnd: start + open + p.tEnd,
	}, true
}

type wikiParts struct {
	target, block, label string
	headings             []string
	tStart, tEnd         int // target's byte range within the inner text
}

// splitWiki splits the text between "[[" and "]]": target, "#" heading
// chain or "#^"/"^" block id, "|" alias. A "\" before the "|" (the escape a
// table needs) is not part of the target.
func splitWiki(inner string) (wikiParts, bool) {
	var p wikiParts
	dest := inner
	if i := strings.IndexByte(inner, '|'); i >= 0 {
		dest, p.label = inner[:i], strings.TrimSpace(inner[i+1:])
		dest = strings.TrimSuffix(dest, `\`)
	}
	file := dest
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		file = dest[:i]
		for _, h := range strings.Split(dest[i+1:], "#") {
			h = strings.TrimSpace(h)
			if strings.HasPrefix(h, "^") {
				p.block = strings.TrimSpace(h[1:])
				continue
			}
			if h != "" {
				p.headings = append(p.headings, h)
			}
		}
	} else if i := strings.IndexByte(dest, '^'); i >= 0 {
		file, p.block = dest[:i], strings.TrimSpace(dest[i+1:])
	}
	lead := len(file) - len(strings.TrimLeft(file, " \t"))
	p.target = strings.TrimSpace(file)
	p.tStart = lead
	p.tEnd = lead + len(p.target)
	if p.target == "" && len(p.headings) == 0 && p.block == "" {
		return p, false
	}
	return p, true
}

// markdownLink builds a link from a goldmark Link or Image node whose
// destination is a local file ("x.md", "../a.png", "#Heading"). Links with
// a URL scheme ("https:", "mailto:", "obsidian:") and empty destinations
// are not wiki links (ok false).
func markdownLink(src []byte, n ast.Node, dest string, ref, embed bool, sp spans) (Link, bool) {
	file, frag, ok := localDest(dest)
	if !ok {
		return Link{}, false
	}
	s, recorded := sp[n]
	start := n.Pos()
	if embed && start > 0 && src[start-1] == '!' {
		start--
	}
	if !recorded || start < 0 {
		return Link{}, false
	}
	l := Link{Kind: KindMarkdown, Embed: embed, Target: file, Reference: ref, Start: start, End: s[1], TargetStart: -1, TargetEnd: -1}
	l.Raw = string(src[l.Start:l.End])
	l.Label = plainText(src, n)
	if frag != "" {
		for _, h := range strings.Split(frag, "#") {
			if strings.HasPrefix(h, "^") {
				l.Block = h[1:]
			} else if h = strings.TrimSpace(h); h != "" {
				l.Headings = append(l.Headings, h)
			}
		}
	}
	if !ref {
		if a, b, ok := destRange(src, s[0]); ok {
			raw := string(src[a:b])
			if i := strings.IndexAny(raw, "#?"); i >= 0 {
				b = a + i
			}
			l.TargetStart, l.TargetEnd = a, b
		}
	}
	return l, true
}

// localDest classifies a markdown link destination. It returns the
// percent-decoded file part and the decoded fragment; ok is false for
// external and empty destinations.
func localDest(dest string) (file, frag string, ok bool) {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.HasPrefix(dest, "//") {
		return "", "", false
	}
	if i := strings.IndexAny(dest, ":/?#"); i > 0 && dest[i] == ':' {
		return "", "", false // a scheme: https:, mailto:, obsidian:, data:
	}
	file = dest
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		file, frag = dest[:i], dest[i+1:]
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
	}
	if i := strings.IndexByte(file, '?'); i >= 0 {
		file = file[:i]
	}
	if f, err := url.PathUnescape(file); err == nil {
		file = f
	}
	if file == "" && frag == "" {
		return "", "", false
	}
	return file, frag, true
}

// destRange finds the destination written after the "]" at close:
// "](dest)", "](<dest>)" or "](dest "title")". It returns its byte range.
func destRange(src []byte, close int) (int, int, bool) {
	i := close + 1
	if close < 0 || i >= len(src) || src[close] != ']' || src[i] != '(' {
		return 0, 0, false
	}
	i++
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	if i < len(src) && src[i] == '<' {
		j := bytes.IndexByte(src[i+1:], '>')
		if j < 0 {
			return 0, 0, false
		}
		return i + 1, i + 1 + j, true
	}
	start, depth := i, 0
	for ; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			i++
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return start, i, true
			}
			depth--
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return start, i, true
		}
	}
	return 0, 0, false
}

// plainText returns the text of n's inline children (a link's label).
func plainText(src []byte, n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(src))
				if t.SoftLineBreak() {
					b.WriteByte(' ')
				}
			} else if t, ok := c.(*ast.String); ok {
				b.Write(t.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

func heading(src []byte, h *ast.Heading) (Heading, bool) {
	lines := h.Lines()
	if lines.Len() == 0 {
		// An empty ATX heading ("##"): it has a position but no text.
		return Heading{}, false
	}
	var parts []string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(src))))
	}
	first, last := lines.At(0), lines.At(lines.Len()-1)
	start := bytes.LastIndexByte(src[:first.Start], '\n') + 1
	end := lineEnd(src, max(last.Stop-1, last.Start))
	if !bytes.ContainsRune(src[start:first.Start], '#') {
		end = lineEnd(src, end) // a setext heading: its underline
	}
	return Heading{Level: h.Level, Text: strings.Join(parts, " "), Start: start, End: end}, true
}

// lineEnd returns the offset just after the line that contains the byte
// at off (its "\n" included).
func lineEnd(src []byte, off int) int {
	if off >= len(src) {
		return len(src)
	}
	if j := bytes.IndexByte(src[off:], '\n'); j >= 0 {
		return off + j + 1
	}
	return len(src)
}

// blockID returns the Obsidian block id ending a paragraph or list item's
// text ("... ^abc-1", a line that is only "^abc-1", or "![[x.png]]^abc-1"
// right after an embed), or "".
func blockID(src []byte, n ast.Node) string {
	lines := n.Lines()
	if lines.Len() == 0 {
		return ""
	}
	seg := lines.At(lines.Len() - 1)
	last := bytes.TrimRight(seg.Value(src), " \t\r\n")
	i := bytes.LastIndexByte(last, '^')
	if i < 0 || i == len(last)-1 {
		return ""
	}
	if i > 0 && last[i-1] != ' ' && last[i-1] != '\t' && !bytes.HasSuffix(last[:i], []byte("]]")) {
		return ""
	}
	id := last[i+1:]
	for _, c := range id {
		if !(c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return ""
		}
	}
	return string(id)
}

// frontmatterLinks returns the wikilinks that are whole frontmatter values
// (related: "[[x]]", or list items), with their place in the block.
func frontmatterLinks(meta map[string]any, block []byte, li lineIndex) []Link {
	var vals []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			s := strings.TrimSpace(x)
			if (strings.HasPrefix(s, "[[") || strings.HasPrefix(s, "![[")) && strings.HasSuffix(s, "]]") && strings.Count(s, "]]") == 1 {
				vals = append(vals, s)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		walk(meta[k])
	}
	if len(vals) == 0 {
		return emptyLinks
	}
	var out []Link
	used := map[int]bool{}
	for _, v := range vals {
		from := 0
		for {
			i := bytes.Index(block[from:], []byte(v))
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(v)
			if used[at] {
				continue
			}
			used[at] = true
			embed := strings.HasPrefix(v, "!")
			if l, ok := wikiLink(block, at, at+len(v), embed); ok {
				l.InFrontmatter = true
				l.Line = li.line(at)
				out = append(out, l)
			}
			break
		}
	}
	if out == nil {
		return emptyLinks
	}
	return out
}
