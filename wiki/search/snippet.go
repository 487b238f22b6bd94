package search

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
)

// Snippet sizes, in characters.
const (
	snippetChars = 200
	listingChars = 1500
)

type match struct {
	start, end int // byte range in the body
	group      int
}

// fillSnippet reads the hit's file and sets its snippet, heading, line and
// listing from the best window of matches. A file that cannot be read gets
// an empty snippet.
func (x *Index) fillSnippet(h *Hit, groups []group, codeAsk bool) {
	data, err := x.st.Root().ReadFile(h.Path)
	if err != nil || wiki.IsBinary(data) {
		return
	}
	if len(data) > MaxIndexedBytes {
		data = data[:MaxIndexedBytes]
	}
	p := parseFile(h.Path, data)
	body := p.body
	var blocks []block
	scanMarkdown(body, func(b block) { blocks = append(blocks, b) })

	want := map[string]int{}
	for gi, g := range groups {
		for _, t := range g.terms {
			if _, ok := want[t]; !ok {
				want[t] = gi
			}
		}
		for _, s := range g.stems {
			if _, ok := want[s]; !ok {
				want[s] = gi
			}
		}
	}
	stemming := hasStemmer(h.Lang)
	var ms []match
	analyze(body, func(t token) {
		gi, ok := want[t.term]
		if !ok && stemming && t.word && !t.extra {
			if st := cachedStem(h.Lang, body[t.start:t.end], t.term); st != "" {
				gi, ok = want[stemTerm(h.Lang, st)]
			}
		}
		if ok {
			ms = append(ms, match{t.start, t.end, gi})
		}
	})
	if len(ms) == 0 {
		h.Snippet = excerpt(body, 0, 0, nil)
		return
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	inCode := func(off int) bool {
		b := blockAt(blocks, off)
		return b >= 0 && blocks[b].kind == blockCode
	}
	// The best window of ~snippetChars bytes: most distinct query words,
	// then most matches; code first when the query asks for code.
	bestI, bestJ, bestScore := 0, 0, -1.0
	j := 0
	counts := map[int]int{}
	for i := range ms {
		if i > 0 {
			g := ms[i-1].group
			counts[g]--
			if counts[g] == 0 {
				delete(counts, g)
			}
		}
		if j < i {
			j = i
		}
		for j < len(ms) && ms[j].end-ms[i].start <= snippetChars {
			counts[ms[j].group]++
			j++
		}
		score := float64(len(counts))*10 + float64(j-i)
		if codeAsk && inCode(ms[i].start) {
			score += 15
		}
		if score > bestScore {
			bestI, bestJ, bestScore = i, j, score
		}
	}
	win := ms[bestI:bestJ]
	if len(win) == 0 {
		win = ms[bestI : bestI+1]
	}
	h.Snippet = excerpt(body, win[0].start, win[len(win)-1].end, win)
	at := win[0].start
	h.Line = 1 + strings.Count(string(data[:p.bodyOff+at]), "\n")
	bi := blockAt(blocks, at)
	for k := len(blocks) - 1; k >= 0; k-- {
		if blocks[k].kind == blockHeading && blocks[k].start <= at {
			h.Heading = blocks[k].text
			break
		}
	}
	if bi >= 0 {
		switch {
		case blocks[bi].kind == blockCode:
			h.Listing = clipChars(blocks[bi].text, listingChars)
		case blocks[bi].kind == blockProse && bi+1 < len(blocks) && blocks[bi+1].kind == blockCode:
			h.Listing = clipChars(blocks[bi+1].text, listingChars)
		}
	}
}

// blockAt returns the index of the block containing off, or -1.
func blockAt(blocks []block, off int) int {
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].end > off })
	if i < len(blocks) && blocks[i].start <= off {
		return i
	}
	return -1
}

func clipChars(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// excerpt returns about snippetChars characters of body around [from, to),
// on one line, with the matches marked **like this**. Cut ends get "…".
func excerpt(body string, from, to int, marks []match) string {
	span := utf8.RuneCountInString(body[from:to])
	pad := (snippetChars - span) / 2
	if pad < 20 {
		pad = 20
	}
	start := from
	for n := 0; n < pad && start > 0; n++ {
		_, sz := utf8.DecodeLastRuneInString(body[:start])
		start -= sz
	}
	end := to
	for n := 0; n < pad && end < len(body); n++ {
		_, sz := utf8.DecodeRuneInString(body[end:])
		end += sz
	}
	// Prefer to cut at a space, when one is near.
	if start > 0 {
		if k := strings.IndexAny(body[start:from], " \n\t"); k >= 0 && k < 30 {
			start += k + 1
		}
	}
	if end < len(body) {
		if k := strings.LastIndexAny(body[to:end], " \n\t"); k >= 0 && end-(to+k) < 30 {
			end = to + k
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, m := range marks {
		if m.start < pos || m.end > end {
			continue
		}
		writeFlat(&b, body[pos:m.start])
		b.WriteString("**")
		writeFlat(&b, body[m.start:m.end])
		b.WriteString("**")
		pos = m.end
	}
	writeFlat(&b, body[pos:end])
	if end < len(body) {
		b.WriteString("…")
	}
	return strings.TrimSpace(b.String())
}

// writeFlat writes s with runs of white space (new lines included) as one
// space.
func writeFlat(b *strings.Builder, s string) {
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
}
