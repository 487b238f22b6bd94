// Package scalecorpus makes wikis of a chosen size from the shared corpora
// (tldr and Obsidian Help) for benchmarks and the scale script: 10k, 44k
// and 144k pages. Up to the 44,681 files of the two corpora a wiki is an
// evenly spaced sample of them (so every size mixes languages and both
// corpora); above that, further copies go under pages/v<k>/ with a third of
// their prose words varied per copy (a vowel of the word changed, chosen
// by a hash of the word and the copy), so a large wiki is not one index of
// duplicates: its vocabulary grows and its postings differ. Frontmatter,
// wikilink targets, code spans, fences and {{placeholders}} are kept as
// they are, so links resolve and pages parse the way the originals do.
//
// The package imports nothing of llmwiki but writes the layout wiki.Init
// makes; the caller initialises the wiki first.
package scalecorpus

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Corpora are the shared corpora a scale wiki is made of, in order.
var Corpora = []string{"obsidian-help", "tldr"}

// Files lists the .md files of the corpora under shared/corpora as paths
// relative to shared/corpora, sorted.
func Files(shared string) ([]string, error) {
	base := filepath.Join(shared, "corpora")
	var out []string
	for _, c := range Corpora {
		err := filepath.WalkDir(filepath.Join(base, c), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			rel, err := filepath.Rel(base, p)
			out = append(out, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// Build writes pages files into root's pages/ folder (root already
// initialised as a wiki) and returns how many it wrote. Copy 0 is linked
// (hard link, else copied) from shared/corpora/<corpus>/...; copy k ≥ 1
// is written to pages/v<k>/<corpus>/... with varied words.
func Build(shared, root string, pages int) (int, error) {
	files, err := Files(shared)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		return 0, fmt.Errorf("no .md files under %s", filepath.Join(shared, "corpora"))
	}
	n := 0
	for k := 0; n < pages; k++ {
		want := min(pages-n, len(files))
		for i := 0; i < want; i++ {
			rel := files[i*len(files)/want] // evenly spaced sample
			src := filepath.Join(shared, "corpora", filepath.FromSlash(rel))
			dstRel := rel
			if k > 0 {
				dstRel = fmt.Sprintf("v%d/%s", k, rel)
			}
			dst := filepath.Join(root, "pages", filepath.FromSlash(dstRel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return n, err
			}
			if k == 0 {
				if err := os.Link(src, dst); err == nil {
					n++
					continue
				}
			}
			data, err := os.ReadFile(src)
			if err != nil {
				return n, err
			}
			if k > 0 {
				data = Vary(data, k)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// Vary returns the text of copy k of a page: about a third of the words
// of its prose changed in one vowel, the same word always changed the same
// way within one copy. Frontmatter, fenced code, `code spans`, [[wikilink
// targets]] and {{placeholders}} are left alone.
func Vary(data []byte, k int) []byte {
	var out bytes.Buffer
	out.Grow(len(data))
	lines := bytes.SplitAfter(data, []byte("\n"))
	inFront, inFence := false, false
	for i, line := range lines {
		t := bytes.TrimSpace(line)
		switch {
		case i == 0 && string(t) == "---":
			inFront = true
			out.Write(line)
			continue
		case inFront:
			if string(t) == "---" {
				inFront = false
			}
			out.Write(line)
			continue
		case bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~")):
			inFence = !inFence
			out.Write(line)
			continue
		case inFence:
			out.Write(line)
			continue
		}
		varyLine(&out, line, k)
	}
	return out.Bytes()
}

func varyLine(out *bytes.Buffer, line []byte, k int) {
	skipUntil := ""
	for i := 0; i < len(line); {
		if skipUntil != "" {
			j := bytes.Index(line[i:], []byte(skipUntil))
			if j < 0 {
				out.Write(line[i:])
				return
			}
			out.Write(line[i : i+j+len(skipUntil)])
			i += j + len(skipUntil)
			skipUntil = ""
			continue
		}
		switch {
		case bytes.HasPrefix(line[i:], []byte("[[")):
			skipUntil = "]]"
			out.WriteString("[[")
			i += 2
			continue
		case bytes.HasPrefix(line[i:], []byte("{{")):
			skipUntil = "}}"
			out.WriteString("{{")
			i += 2
			continue
		case line[i] == '`':
			skipUntil = "`"
			out.WriteByte('`')
			i++
			continue
		case line[i] == '<':
			skipUntil = ">" // an autolink
			out.WriteByte('<')
			i++
			continue
		case line[i] == '(' && i > 0 && line[i-1] == ']':
			skipUntil = ")" // a markdown link's target
			out.WriteByte('(')
			i++
			continue
		}
		if !isLetter(line[i]) {
			out.WriteByte(line[i])
			i++
			continue
		}
		j := i
		for j < len(line) && isLetter(line[j]) {
			j++
		}
		out.Write(varyWord(line[i:j], k))
		i = j
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var vowels = []byte("aeiou")

// varyWord changes one vowel of an ASCII word of four letters or more in
// about a third of the words, decided by a hash of the word and k.
func varyWord(w []byte, k int) []byte {
	if len(w) < 4 {
		return w
	}
	h := fnv.New32a()
	h.Write(w)
	fmt.Fprintf(h, "/%d", k)
	s := h.Sum32()
	if s%3 != 0 {
		return w
	}
	var at []int
	for i, c := range w {
		if bytes.IndexByte(vowels, c|0x20) >= 0 {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return w
	}
	i := at[int(s>>8)%len(at)]
	c := w[i]
	v := vowels[(bytes.IndexByte(vowels, c|0x20)+1+int(s>>16)%4)%5]
	if c < 'a' {
		v -= 0x20
	}
	out := append([]byte(nil), w...)
	out[i] = v
	return out
}
