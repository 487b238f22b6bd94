package ui

import (
	"bytes"
	"context"
	"html/template"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/wikilink"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
)

// imageTypes are the file extensions shown inline as <img>, with the media
// type /files serves them as. SVG is left out: an SVG opened on its own is
// a document that may run script.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".apng": "image/apng",
}

// servedImage reports whether rel is a file /files serves: an image under
// pages/ or sources/, by its extension.
func servedImage(rel string) bool {
	if rel != path.Clean(rel) || strings.HasPrefix(rel, "/") || strings.Contains(rel, "..") {
		return false
	}
	if l := wiki.LayerOf(rel); l != wiki.LayerPages && l != wiki.LayerSources && l != wiki.LayerResearch {
		return false
	}
	_, ok := imageTypes[strings.ToLower(path.Ext(rel))]
	return ok
}

// pageURL is the address of the page at rel (a path under pages/).
func pageURL(rel string) string {
	return "/pages/" + escapePath(strings.TrimPrefix(rel, "pages/"))
}

// historyURL is the address of the history of the page at rel.
func historyURL(rel string) string {
	return "/history/" + escapePath(strings.TrimPrefix(rel, "pages/"))
}

// escapePath percent-encodes each segment of a slash-separated path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// headingID is the HTML id of a heading: its [links.HeadingKey] (how a
// [[page#Heading]] link names it) with spaces as "-", so a link's fragment
// and the heading it names meet on one key.
func headingID(s string) string {
	return "h-" + strings.ReplaceAll(links.HeadingKey(s), " ", "-")
}

// headingIDs gives goldmark's headings their [headingID], numbered when a
// page repeats a heading.
type headingIDs struct{ used map[string]bool }

func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	id := headingID(string(value))
	for n, base := 1, id; h.used[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	h.used[id] = true
	return []byte(id)
}

func (h *headingIDs) Put(value []byte) { h.used[string(value)] = true }

// sanitizer is the policy every rendered page passes through: bluemonday's
// UGC policy (no script, no event handlers, no javascript: URLs), plus the
// classes this package's renderer sets and GFM's task-list checkboxes.
var sanitizer = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^wl-(missing|ambiguous|embed|file)$`)).OnElements("a", "span", "div")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^(|checked|disabled)$`)).OnElements("input")
	return p
})

// maxEmbedBytes caps the file an embed inlines.
const maxEmbedBytes = wiki.MaxPageBytes

// mdRender renders one page's markdown to sanitized HTML: wikilinks and
// local markdown links resolved by the wiki's own resolver (the link graph)
// to /pages/... or /files/..., unresolved ones marked, and embeds of pages
// inlined one level deep.
type mdRender struct {
	ctx   context.Context
	st    *wiki.Store
	res   *links.Resolver // nil: no link resolves
	from  string          // the page being rendered
	depth int             // 1 inside an embed: embeds there are links
}

// renderMarkdown renders body, the markdown of the file from (after its
// frontmatter), as sanitized HTML.
func renderMarkdown(ctx context.Context, st *wiki.Store, view *links.View, from string, body []byte) template.HTML {
	r := &mdRender{ctx: ctx, st: st, from: from}
	if view != nil {
		r.res = view.Resolver()
	}
	return template.HTML(sanitizer().SanitizeBytes(r.html(body)))
}

// html renders body without sanitizing (the caller sanitizes the whole).
func (r *mdRender) html(body []byte) []byte {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithInlineParsers(util.Prioritized(&wikilink.Parser{}, 199)),
			parser.WithASTTransformers(util.Prioritized(r, 999)),
		),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(r, 100))),
	)
	var buf bytes.Buffer
	pc := parser.NewContext(parser.WithIDs(&headingIDs{used: map[string]bool{}}))
	if err := md.Convert(body, &buf, parser.WithContext(pc)); err != nil {
		return []byte(`<p class="error">` + template.HTMLEscapeString(err.Error()) + `</p>`)
	}
	return buf.Bytes()
}

// resolve finds the file a link target names, as the link graph does.
func (r *mdRender) resolve(target string) links.Resolution {
	if r.res == nil {
		return links.Resolution{}
	}
	return r.res.Resolve(r.from, target)
}

// fileURL is where a resolved link leads: a page, an image, or "" for a
// file the app does not show.
func fileURL(rel, fragment string) string {
	switch {
	case wiki.LayerOf(rel) == wiki.LayerPages && strings.EqualFold(path.Ext(rel), ".md"):
		u := pageURL(rel)
		if h := lastHeading(fragment); h != "" {
			u += "#" + headingID(h)
		}
		return u
	case servedImage(rel):
		return "/files/" + escapePath(rel)
	}
	return ""
}

// lastHeading is the heading a fragment ("A#B", "^block") points at: the
// last of a heading chain, "" for a block id.
func lastHeading(fragment string) string {
	if fragment == "" || strings.HasPrefix(fragment, "^") {
		return ""
	}
	hs := strings.Split(fragment, "#")
	return hs[len(hs)-1]
}

// Transform implements parser.ASTTransformer: local markdown links and
// images are pointed at the file they resolve to.
func (r *mdRender) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest *[]byte
		switch n := n.(type) {
		case *ast.Link:
			dest = &n.Destination
		case *ast.Image:
			dest = &n.Destination
		default:
			return ast.WalkContinue, nil
		}
		d := string(*dest)
		if d == "" || strings.HasPrefix(d, "#") || strings.Contains(d, ":") || strings.HasPrefix(d, "//") {
			return ast.WalkContinue, nil
		}
		file, frag, _ := strings.Cut(d, "#")
		if u, err := url.PathUnescape(file); err == nil {
			file = u
		}
		if res := r.resolve(file); res.Path != "" {
			if u := fileURL(res.Path, frag); u != "" {
				*dest = []byte(u)
			}
		}
		return ast.WalkContinue, nil
	})
}

// RegisterFuncs implements renderer.NodeRenderer for wikilinks.
func (r *mdRender) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(wikilink.Kind, r.renderWikilink)
	reg.Register(ast.KindParagraph, r.renderParagraph)
}

// renderParagraph is goldmark's paragraph, except that a paragraph which is
// only an embed of a page (the embed on a line of its own) is replaced by
// the embed's <div>: a <div> inside a <p> is not valid HTML.
func (r *mdRender) renderParagraph(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		if _, ok := node.AttributeString(closeKey); ok {
			_ = w.WriteByte('\n')
		} else {
			_, _ = w.WriteString("</p>\n")
		}
		return ast.WalkContinue, nil
	}
	if n, ok := node.FirstChild().(*wikilink.Node); ok && node.ChildCount() == 1 {
		if inner, ok := r.pageEmbed(n); ok {
			writeEmbed(w, inner)
			setClose(node, "")
			return ast.WalkSkipChildren, nil
		}
	}
	if node.Attributes() != nil {
		_, _ = w.WriteString("<p")
		html.RenderAttributes(w, node, html.ParagraphAttributeFilter)
		_ = w.WriteByte('>')
	} else {
		_, _ = w.WriteString("<p>")
	}
	return ast.WalkContinue, nil
}

// pageEmbed renders the page an embed wikilink names, when it is shown
// inline: a markdown file other than this one, outside an embed.
func (r *mdRender) pageEmbed(n *wikilink.Node) ([]byte, bool) {
	if !n.Embed || r.depth != 0 {
		return nil, false
	}
	target, frag := string(n.Target), string(n.Fragment)
	res := r.resolve(target)
	if target == "" {
		res = links.Resolution{Path: r.from}
	}
	if res.Path == "" || res.Path == r.from || !strings.EqualFold(path.Ext(res.Path), ".md") {
		return nil, false
	}
	return r.embed(res.Path, frag)
}

// writeEmbed writes an embedded page's HTML in its frame.
func writeEmbed(w util.BufWriter, inner []byte) {
	_, _ = w.WriteString(`<div class="wl-embed">`)
	_, _ = w.Write(inner)
	_, _ = w.WriteString(`</div>`)
}

func (r *mdRender) renderWikilink(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*wikilink.Node)
	target, frag := string(n.Target), string(n.Fragment)
	if !entering {
		_, _ = w.WriteString(closingTag(n))
		return ast.WalkContinue, nil
	}
	res := r.resolve(target)
	if target == "" {
		res = links.Resolution{Path: r.from}
	}
	if n.Embed && res.Path != "" {
		if servedImage(res.Path) {
			alt := labelText(src, n)
			_, _ = w.WriteString(`<img src="` + template.HTMLEscapeString(fileURL(res.Path, "")) + `" alt="` + template.HTMLEscapeString(alt) + `">`)
			setClose(n, "")
			return ast.WalkSkipChildren, nil
		}
		if inner, ok := r.pageEmbed(n); ok {
			writeEmbed(w, inner)
			setClose(n, "")
			return ast.WalkSkipChildren, nil
		}
	}
	if res.Path == "" {
		_, _ = w.WriteString(`<span class="wl-missing" title="no file named ` + template.HTMLEscapeString(target) + `">`)
		setClose(n, "</span>")
		return ast.WalkContinue, nil
	}
	u := fileURL(res.Path, frag)
	if u == "" {
		_, _ = w.WriteString(`<span class="wl-file" title="` + template.HTMLEscapeString(res.Path) + `">`)
		setClose(n, "</span>")
		return ast.WalkContinue, nil
	}
	class := ""
	if len(res.Ambiguous) > 0 {
		class = ` class="wl-ambiguous" title="ambiguous: also ` + template.HTMLEscapeString(strings.Join(res.Ambiguous, ", ")) + `"`
	}
	_, _ = w.WriteString(`<a href="` + template.HTMLEscapeString(u) + `"` + class + `>`)
	setClose(n, "</a>")
	return ast.WalkContinue, nil
}

// closeKey is the attribute a wikilink node carries its closing tag in
// between entering and leaving it.
const closeKey = "llmwiki-close"

func setClose(n ast.Node, tag string) { n.SetAttributeString(closeKey, []byte(tag)) }

func closingTag(n ast.Node) string {
	if v, ok := n.AttributeString(closeKey); ok {
		if b, ok := v.([]byte); ok {
			return string(b)
		}
	}
	return ""
}

// labelText is the shown text of a wikilink: its label, or its target.
func labelText(src []byte, n *wikilink.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	if b.Len() == 0 || b.String() == string(n.Target) {
		return path.Base(string(n.Target))
	}
	return b.String()
}

// embed renders the markdown file rel (or its section under the heading
// frag names) for inlining, with embeds inside it shown as links.
func (r *mdRender) embed(rel, frag string) ([]byte, bool) {
	data, err := r.st.ReadFile(rel)
	if err != nil || len(data) > maxEmbedBytes {
		return nil, false
	}
	pg := links.Parse(rel, data)
	body := data[pg.BodyStart:]
	if h := lastHeading(frag); h != "" {
		key := links.HeadingKey(h)
		body = nil
		for i, hd := range pg.Headings {
			if links.HeadingKey(hd.Text) != key {
				continue
			}
			end := len(data)
			for _, next := range pg.Headings[i+1:] {
				if next.Level <= hd.Level {
					end = next.Start
					break
				}
			}
			body = data[hd.Start:end]
			break
		}
		if body == nil {
			return nil, false
		}
	}
	inner := &mdRender{ctx: r.ctx, st: r.st, res: r.res, from: rel, depth: r.depth + 1}
	return inner.html(body), true
}
