package lint

// A second, simple reading of a vault, written independently of
// wiki/links and of the checks in run.go, to cross-check the lint counts on
// real input (TestObsidianHelpCounts). It scans lines instead of parsing
// markdown: fenced code (``` and ~~~), HTML blocks, code spans and
// backslash escapes are skipped by hand; wikilinks are "[[...]]" on one
// line, markdown links "](...)" with a local destination.

import (
	"hash/fnv"
	"math"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

type sLink struct {
	raw, target, frag string
	embed             bool
	line              int
	md                bool
}

type sPage struct {
	path     string
	hasFM    bool
	fm       map[string]string // top-level key -> raw value text (first line), for non-empty values
	aliases  []string
	title    string
	links    []sLink
	headings []string
	blocks   []string
}

// sSplit cuts a file at its YAML frontmatter: the text between a first line
// "---" and the next line "---".
func sSplit(s string) (fm []string, body string, bodyLine int) {
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return nil, s, 1
	}
	lines := strings.SplitAfter(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == "---" {
			var out []string
			for _, l := range lines[1:i] {
				out = append(out, strings.TrimRight(l, "\r\n"))
			}
			return out, strings.Join(lines[i+1:], ""), i + 2
		}
	}
	return nil, s, 1
}

func sFrontmatter(lines []string, p *sPage) {
	p.fm = map[string]string{}
	key := ""
	for _, l := range lines {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if l[0] != ' ' && l[0] != '-' && strings.Contains(l, ":") {
			i := strings.Index(l, ":")
			key = l[:i]
			v := strings.TrimSpace(l[i+1:])
			if j := strings.Index(v, " #"); j >= 0 {
				v = strings.TrimSpace(v[:j])
			}
			if v != "" && v != "[]" && v != "''" && v != `""` && v != "null" && v != "~" {
				p.fm[key] = v
			}
			if key == "aliases" || key == "alias" {
				if strings.HasPrefix(v, "[") {
					for _, a := range strings.Split(strings.Trim(v, "[]"), ",") {
						if a = strings.Trim(strings.TrimSpace(a), `"'`); a != "" {
							p.aliases = append(p.aliases, a)
						}
					}
				} else if v != "" {
					p.aliases = append(p.aliases, strings.Trim(v, `"'`))
				}
			}
			continue
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "- ") && key != "" {
			p.fm[key] = "list"
			if key == "aliases" || key == "alias" {
				p.aliases = append(p.aliases, strings.Trim(strings.TrimSpace(t[2:]), `"'`))
			}
		}
	}
	if t, ok := p.fm["title"]; ok {
		p.title = strings.Trim(t, `"'`)
	}
}

var htmlBlockTags = map[string]bool{"div": true, "table": true, "p": true, "iframe": true, "details": true, "center": true, "ul": true, "ol": true, "li": true, "tr": true, "td": true, "th": true, "tbody": true, "thead": true, "section": true, "figure": true, "dl": true, "form": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "hr": true, "blockquote": true, "pre": true, "script": true, "style": true, "video": true, "audio": true, "img": false}

func sHTMLStart(t string) bool {
	if !strings.HasPrefix(t, "<") {
		return false
	}
	name := strings.TrimPrefix(t[1:], "/")
	end := strings.IndexFunc(name, func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r)) })
	if end >= 0 {
		name = name[:end]
	}
	low := strings.ToLower(name)
	return htmlBlockTags[low] || low == "textarea" || strings.HasPrefix(t, "<!--")
}

// sStripCode removes code spans and backslash-escaped brackets from a line.
func sStripCode(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		if l[i] == '\\' && i+1 < len(l) && (l[i+1] == '[' || l[i+1] == ']' || l[i+1] == '`' || l[i+1] == '!') {
			b.WriteString("  ")
			i += 2
			continue
		}
		if l[i] == '`' {
			n := 0
			for i+n < len(l) && l[i+n] == '`' {
				n++
			}
			run := strings.Repeat("`", n)
			// the closing run: exactly n backticks
			j := i + n
			closed := -1
			for j < len(l) {
				k := strings.Index(l[j:], run)
				if k < 0 {
					break
				}
				k += j
				m := 0
				for k+m < len(l) && l[k+m] == '`' {
					m++
				}
				if m == n {
					closed = k
					break
				}
				j = k + m
			}
			if closed >= 0 {
				b.WriteString(strings.Repeat(" ", closed+n-i))
				i = closed + n
				continue
			}
			b.WriteString(run)
			i += n
			continue
		}
		b.WriteByte(l[i])
		i++
	}
	return b.String()
}

func sParse(rel, s string) *sPage {
	p := &sPage{path: rel}
	fm, body, bodyLine := sSplit(s)
	if fm != nil {
		p.hasFM = true
		sFrontmatter(fm, p)
	} else {
		p.fm = map[string]string{}
	}
	lines := strings.Split(body, "\n")
	fence := ""
	html := ""
	for i, raw := range lines {
		ln := bodyLine + i
		l := strings.TrimRight(raw, "\r")
		t := strings.TrimLeft(l, " \t>")
		if html != "" {
			// A <pre>, <script>, <style> or <textarea> block ends at its
			// closing tag, a comment at "-->", any other at a blank line.
			if (html == "blank" && strings.TrimSpace(l) == "") || (html != "blank" && strings.Contains(strings.ToLower(l), html)) {
				html = ""
			}
			continue
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]+" ") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			c := t[:1]
			n := 0
			for n < len(t) && t[n] == c[0] {
				n++
			}
			if !(c == "`" && strings.Contains(t[n:], "`")) {
				fence = t[:n]
				continue
			}
		}
		if lt := strings.TrimLeft(l, " "); sHTMLStart(lt) && len(l)-len(lt) < 4 {
			html = "blank"
			low := strings.ToLower(lt)
			for _, tag := range []string{"pre", "script", "style", "textarea"} {
				if strings.HasPrefix(low, "<"+tag) {
					html = "</" + tag + ">"
				}
			}
			if strings.HasPrefix(low, "<!--") {
				html = "-->"
			}
			if html != "blank" && strings.Contains(low[1:], html) {
				html = "" // closed on its first line
			}
			continue
		}
		if strings.HasPrefix(t, "#") {
			h := strings.TrimLeft(t, "#")
			if len(t)-len(h) <= 6 && (h == "" || h[0] == ' ') {
				h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
				if h != "" {
					p.headings = append(p.headings, h)
					if p.title == "" && len(t)-len(strings.TrimLeft(t, "#")) == 1 && len(p.headings) == 1 {
						p.title = h
					}
				}
			}
		}
		c := sStripCode(l)
		if k := strings.LastIndex(strings.TrimRight(c, " "), "^"); k >= 0 {
			id := strings.TrimRight(c, " ")[k+1:]
			ok := id != ""
			for _, r := range id {
				ok = ok && (r == '-' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)))
			}
			if ok && (k == 0 || c[k-1] == ' ' || c[k-1] == ']' || c[k-1] == '\t') {
				p.blocks = append(p.blocks, id)
			}
		}
		// wikilinks
		for off := 0; ; {
			j := strings.Index(c[off:], "[[")
			if j < 0 {
				break
			}
			j += off
			k := strings.Index(c[j+2:], "]]")
			if k < 0 {
				break
			}
			inner := l[j+2 : j+2+k]
			embed := j > 0 && c[j-1] == '!'
			off = j + 2 + k + 2
			target := inner
			if x := strings.Index(target, "|"); x >= 0 {
				target = strings.TrimSuffix(target[:x], `\`)
			}
			frag := ""
			if x := strings.Index(target, "#"); x >= 0 {
				target, frag = target[:x], target[x+1:]
			} else if x := strings.Index(target, "^"); x >= 0 {
				target, frag = target[:x], "^"+target[x+1:]
			}
			target = strings.TrimSpace(target)
			if target == "" && strings.Trim(frag, "# ") == "" {
				continue
			}
			rawStart := j
			if embed {
				rawStart--
			}
			p.links = append(p.links, sLink{raw: l[rawStart:off], target: target, frag: strings.TrimSpace(frag), embed: embed, line: ln})
		}
		// markdown links: "](" + destination + ")"
		for off := 0; ; {
			j := strings.Index(c[off:], "](")
			if j < 0 {
				break
			}
			j += off
			off = j + 2
			// the opening bracket, skipping nested brackets
			depth, o := 0, -1
			for x := j - 1; x >= 0; x-- {
				if c[x] == ']' {
					depth++
				} else if c[x] == '[' {
					if depth == 0 {
						o = x
						break
					}
					depth--
				}
			}
			// "[[x]](y)" is a wikilink followed by text; "[^1]" a footnote.
			if o < 0 || (o > 0 && c[o-1] == '[') || (o+1 < len(c) && c[o+1] == '^') || (j > 0 && c[j-1] == ']') {
				continue
			}
			rest := c[j+2:]
			var dest string
			if strings.HasPrefix(rest, "<") {
				e := strings.Index(rest, ">")
				if e < 0 {
					continue
				}
				dest = rest[1:e]
			} else {
				e := strings.IndexAny(rest, " )")
				if e < 0 {
					continue
				}
				dest = rest[:e]
			}
			if dest == "" || strings.HasPrefix(dest, "//") {
				continue
			}
			if x := strings.IndexAny(dest, ":/?#"); x > 0 && dest[x] == ':' {
				continue
			}
			target, frag := dest, ""
			if x := strings.Index(dest, "#"); x >= 0 {
				target, frag = dest[:x], dest[x+1:]
			}
			if u, err := url.PathUnescape(target); err == nil {
				target = u
			}
			if u, err := url.PathUnescape(frag); err == nil {
				frag = u
			}
			embed := o > 0 && c[o-1] == '!'
			p.links = append(p.links, sLink{raw: "md:" + dest, target: target, frag: frag, embed: embed, line: ln, md: true})
		}
	}
	if p.title == "" {
		p.title = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	}
	sort.SliceStable(p.links, func(i, j int) bool { return p.links[i].line < p.links[j].line })
	return p
}

// sKey folds a path or target: lower case, NFC, ".md" dropped.
func sKey(s string) string {
	s = norm.NFC.String(strings.ToLower(s))
	return strings.TrimSuffix(s, ".md")
}

// sIndex is the simple method's file list: each file's folded path, by
// folded base name.
type sIndex struct {
	byBase  map[string][]string // base name key -> paths
	keys    map[string]string   // path -> key
	aliases map[string][]string
}

func newSIndex(files []string, aliases map[string][]string) *sIndex {
	ix := &sIndex{byBase: map[string][]string{}, keys: map[string]string{}, aliases: aliases}
	for _, f := range files {
		k := sKey(f)
		ix.keys[f] = k
		b := path.Base(k)
		ix.byBase[b] = append(ix.byBase[b], f)
	}
	return ix
}

// resolve finds a link's file the simple way: candidates are files whose
// folded path ends with "/"+target (or equals it); of several, the one
// sharing the most leading folders with the linking file, then the
// shortest path, then the smallest; then aliases. It returns the file and
// how many candidates were as near as it.
func (ix *sIndex) resolve(from, target string) (string, int) {
	if target == "" {
		return from, 1
	}
	if strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") {
		j := sKey(path.Join(path.Dir(from), target))
		for _, f := range ix.byBase[path.Base(j)] {
			if ix.keys[f] == j {
				return f, 1
			}
		}
		return "", 0
	}
	tk := sKey(strings.TrimLeft(target, "/"))
	var cands []string
	for _, f := range ix.byBase[path.Base(tk)] {
		k := ix.keys[f]
		if k == tk || strings.HasSuffix(k, "/"+tk) {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		cands = append(cands, ix.aliases[sKey(target)]...)
	}
	if len(cands) == 0 {
		return "", 0
	}
	share := func(p string) int {
		a, b := strings.Split(path.Dir(from), "/"), strings.Split(path.Dir(p), "/")
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	sort.Slice(cands, func(i, j int) bool {
		si, sj := share(cands[i]), share(cands[j])
		if si != sj {
			return si > sj
		}
		if len(cands[i]) != len(cands[j]) {
			return len(cands[i]) < len(cands[j])
		}
		return cands[i] < cands[j]
	})
	tied := 1
	for _, c := range cands[1:] {
		if share(c) == share(cands[0]) {
			tied++
		}
	}
	return cands[0], tied
}

// sHeadingKey folds a heading for comparison: lower case, NFKC, the
// punctuation Obsidian leaves out of heading links as spaces, spaces
// collapsed, and emphasis marks dropped.
func sHeadingKey(s string) string {
	s = norm.NFKC.String(strings.ToLower(s))
	s = strings.NewReplacer("**", "", "__", "", "*", "", "_", "", "’", "'", "‘", "'", "“", "\"", "”", "\"").Replace(s)
	f := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("!\"#$%&()*+,.:;<=>?@^`{|}~/[]\\", r)
	})
	return strings.Join(f, " ")
}

// sAnchor is a heading's GitHub-style anchor: lower case, spaces to "-",
// anything but letters, digits, marks, "-" and "_" dropped.
func sAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		if r == ' ' {
			r = '-'
		}
		if r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sCounts runs the simple method over pages (path -> content, paths
// project-relative) and returns, per category, the findings as
// "file:line target" strings (line 0 for whole-file findings).
func sCounts(pages map[string]string, required []string) map[string][]string {
	var files []string
	parsed := map[string]*sPage{}
	aliases := map[string][]string{}
	for p, c := range pages {
		files = append(files, p)
		sp := sParse(p, c)
		parsed[p] = sp
		for _, a := range sp.aliases {
			aliases[sKey(a)] = append(aliases[sKey(a)], p)
		}
	}
	sort.Strings(files)
	for a, ps := range aliases {
		aliases[a] = sUniq(ps)
	}
	ix := newSIndex(files, aliases)
	out := map[string][]string{}
	add := func(kind, s string) { out[kind] = append(out[kind], s) }
	inbound := map[string]int{}
	for _, p := range files {
		sp := parsed[p]
		for _, l := range sp.links {
			to, tied := ix.resolve(p, l.target)
			where := p + ":" + strconv.Itoa(l.line) + " " + l.target
			switch {
			case to == "" && l.embed:
				add(KindMissingEmbed, where)
				continue
			case to == "":
				add(KindDanglingLink, where)
				continue
			}
			if to != p {
				inbound[to]++
			}
			if tp := parsed[to]; tp != nil && l.frag != "" {
				if strings.HasPrefix(l.frag, "^") {
					found := false
					for _, b := range tp.blocks {
						found = found || strings.EqualFold(b, l.frag[1:])
					}
					if !found {
						add(KindMissingHeading, where)
						continue
					}
				} else {
					idx, ok := -1, true
					for _, h := range strings.Split(l.frag, "#") {
						if strings.TrimSpace(h) == "" {
							continue
						}
						hk := sHeadingKey(h)
						found := false
						for j := idx + 1; j < len(tp.headings); j++ {
							if sHeadingKey(tp.headings[j]) == hk || (l.md && sAnchor(tp.headings[j]) == strings.ToLower(h)) {
								idx, found = j, true
								break
							}
						}
						ok = ok && found
					}
					if !ok {
						add(KindMissingHeading, where)
						continue
					}
				}
			}
			if tied > 1 {
				add(KindAmbiguousLink, where)
			}
		}
	}
	titles := map[string][]string{}
	names := map[string][]string{}
	for _, p := range files {
		sp := parsed[p]
		if inbound[p] == 0 {
			add(KindOrphanPage, p+":0")
		}
		if sp.fm["sources"] == "" {
			add(KindPageWithoutSources, p+":0")
		}
		for _, k := range required {
			if sp.fm[k] == "" {
				add(KindMissingFrontmatter, p+":1")
				break
			}
		}
		tk := norm.NFC.String(strings.ToLower(strings.Join(strings.Fields(sp.title), " ")))
		titles[tk] = append(titles[tk], p)
		names[sKey(path.Base(p))] = append(names[sKey(path.Base(p))], p)
	}
	for _, ps := range titles {
		if len(ps) > 1 {
			sort.Strings(ps)
			add(KindDuplicateTitle, ps[0]+":0")
		}
	}
	for a, owners := range aliases {
		owners = sUniq(owners)
		others := 0
		own := map[string]bool{}
		for _, o := range owners {
			own[o] = true
		}
		seen := map[string]bool{}
		for _, p := range append(append([]string{}, names[a]...), titles[strings.TrimSuffix(a, ".md")]...) {
			if !own[p] && !seen[p] {
				seen[p] = true
				others++
			}
		}
		if len(owners) > 1 || others > 0 {
			sort.Strings(owners)
			add(KindDuplicateAlias, owners[0]+":alias")
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func sUniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sTokens splits text into words the simple way, as package internal/shingle
// documents its tokens (without using it): runs of letters, digits and
// combining marks, lower-cased; in scripts written without spaces (Han,
// kana, Thai, Lao, Khmer, Myanmar, Tibetan) each character is a word.
func sTokens(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// sShingles returns the distinct 5-word shingles of text, each as the
// 64-bit FNV-1a hash of its words joined by spaces, sorted.
func sShingles(text string) []uint64 {
	toks := sTokens(text)
	seen := map[uint64]bool{}
	var out []uint64
	for i := 0; i+5 <= len(toks); i++ {
		h := fnv.New64a()
		h.Write([]byte(strings.Join(toks[i:i+5], " ")))
		x := h.Sum64()
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// sJaccard is |a∩b| / |a∪b| of two sorted sets without repeats.
func sJaccard(a, b []uint64) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// sNearDuplicates finds the groups of pages whose shingle sets
// ([sShingles] of the body) have Jaccard similarity at least t, exactly,
// by an all-pairs similarity join with prefix filtering (Bayardo, Ma,
// Srikant, "Scaling up all pairs similarity search", 2007): tokens are
// ordered rarest first, and two sets with Jaccard >= t must share a token
// among the first |x| - ceil(t*|x|) + 1 of each. It returns the first path
// of each group (connected components of the pairs).
func sNearDuplicates(bodies map[string]string, t float64, minShingles int) []string {
	var paths []string
	sets := map[string][]uint64{}
	for p, b := range bodies {
		s := sShingles(b)
		if len(s) >= minShingles {
			paths = append(paths, p)
			sets[p] = s
		}
	}
	sort.Strings(paths)
	df := map[uint64]int{}
	for _, p := range paths {
		for _, h := range sets[p] {
			df[h]++
		}
	}
	index := map[uint64][]int{}
	parent := make([]int, len(paths))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			x = parent[x]
		}
		return x
	}
	for i, p := range paths {
		type tf struct {
			tok uint64
			df  int
		}
		ts := make([]tf, len(sets[p]))
		for k, h := range sets[p] {
			ts[k] = tf{h, df[h]}
		}
		sort.Slice(ts, func(a, b int) bool {
			if ts[a].df != ts[b].df {
				return ts[a].df < ts[b].df
			}
			return ts[a].tok < ts[b].tok
		})
		toks := make([]uint64, len(ts))
		for k, x := range ts {
			toks[k] = x.tok
		}
		n := len(toks)
		prefix := n - int(math.Ceil(t*float64(n))) + 1
		cands := map[int]bool{}
		for _, h := range toks[:prefix] {
			for _, j := range index[h] {
				cands[j] = true
			}
			index[h] = append(index[h], i)
		}
		for j := range cands {
			if sJaccard(sets[p], sets[paths[j]]) >= t {
				a, b := find(i), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			}
		}
	}
	groups := map[int][]string{}
	for i, p := range paths {
		groups[find(i)] = append(groups[find(i)], p)
	}
	var out []string
	for _, g := range groups {
		if len(g) > 1 {
			sort.Strings(g)
			out = append(out, g[0]+":0")
		}
	}
	sort.Strings(out)
	return out
}

// sIndexDrift reports index.md as drifted (["index.md:0"]) when it is
// missing, when a page is not linked from it, when one of its links leads
// to no page, or when its frontmatter's page count is wrong. index is
// index.md's content ("" and ok false when there is none); pages are all
// the pages (path -> content).
func sIndexDrift(index string, ok bool, pages map[string]string) []string {
	if !ok {
		return []string{"index.md:0"}
	}
	var files []string
	for p := range pages {
		files = append(files, p)
	}
	sort.Strings(files)
	ix := newSIndex(files, nil)
	listed := map[string]bool{}
	drift := false
	for _, l := range sParse("index.md", index).links {
		to, _ := ix.resolve("index.md", l.target)
		if to == "" || to == "index.md" {
			drift = true
			continue
		}
		listed[to] = true
	}
	for _, p := range files {
		drift = drift || !listed[p]
	}
	fm, _, _ := sSplit(index)
	n := ""
	for _, l := range fm {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "pages" {
			n = strings.TrimSpace(v)
		}
	}
	if n != strconv.Itoa(len(files)) {
		drift = true
	}
	if drift {
		return []string{"index.md:0"}
	}
	return nil
}
