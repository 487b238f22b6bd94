package search

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var stemPrefixRun = flag.Bool("stemprefix", false, "print how much of each word's start its stem keeps, over the shared corpora")

// TestStemPrefix prints, per Snowball language, the words of the shared
// corpora whose stem keeps fewer than three of their first characters, and
// those whose stem's last two or more characters differ from the word (the
// figures behind stemKept in snippet.go):
//
//	go test ./wiki/search -run TestStemPrefix -stemprefix -v
func TestStemPrefix(t *testing.T) {
	if !*stemPrefixRun {
		t.Skip("prints figures only with -stemprefix (go test ./wiki/search -run TestStemPrefix -stemprefix -v)")
	}
	shared := wikitest.SharedDir(t)
	for lang := range snowball {
		dirs := []string{filepath.Join(shared, "corpora", "obsidian-help", lang), filepath.Join(shared, "corpora", "tldr", "pages."+lang)}
		if lang == "en" {
			dirs = append(dirs, filepath.Join(shared, "corpora", "tldr", "pages"))
		}
		seen := map[string]bool{}
		worst := map[int][]string{}
		defs := map[int][]string{}
		n := 0
		for _, d := range dirs {
			filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
				if err != nil || de.IsDir() {
					return nil
				}
				data, _ := os.ReadFile(p)
				text := string(data)
				analyze(text, func(tk token) {
					if !tk.word || tk.extra {
						return
					}
					raw := text[tk.start:tk.end]
					if seen[raw] {
						return
					}
					seen[raw] = true
					n++
					st := cachedStem(lang, raw, tk.term)
					f := fold(raw)
					// the bytes of st that start f, whole runes
					k := 0
					for k < len(st) && k < len(f) && st[k] == f[k] {
						k++
					}
					for k > 0 && k < len(st) && !utf8.RuneStart(st[k]) {
						k--
					}
					kr := utf8.RuneCountInString(st[:k])
					sr := utf8.RuneCountInString(st)
					def := sr - kr
					if kr < 3 && kr < sr {
						worst[kr] = append(worst[kr], f+"→"+st)
					}
					defs[def] = append(defs[def], f+"→"+st)
				})
				return nil
			})
		}
		var out []string
		for kr, ws := range worst {
			out = append(out, fmt.Sprintf("keeps %d runes: %d words e.g. %v", kr, len(ws), ws[:min(8, len(ws))]))
		}
		for d, ws := range defs {
			if d >= 2 {
				out = append(out, fmt.Sprintf("deficit %d: %d words e.g. %v", d, len(ws), ws[:min(6, len(ws))]))
			}
		}
		fmt.Printf("%s: %d words; %s\n", lang, n, strings.Join(out, "; "))
	}
}
