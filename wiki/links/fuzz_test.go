package links

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: for any input, Parse does not panic, parseLean gives the same
// page, every link's offsets lie inside the file and give back its Raw text
// and target, and rewriting every link to its own target changes nothing.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"[[a]] [[b|c]] ![[d#e]] [[f#^g]] [[h^i]]",
		"---\ntitle: x\nrel: \"[[y]]\"\n---\n[[z]]",
		"| [[a\\|b]] |\n|--|\n",
		"`[[no]]` ```\n[[no]]\n``` [[]] [[#]] [[ ]]",
		"[x](a%20b.md#c) ![i](p.png) [r][ref]\n\n[ref]: q.md\n",
		"```\nunclosed [[x]]",
		"# H\n\npara ^id\n\nSetext\n===\n",
		"[[a\n]] [[[b]]] ![[![[c]]]] [x](<a b.md>) [y](a(b).md)",
		"{{[-C|--directory]}} `{{[-C|--directory]}}`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		pg := Parse("pages/fuzz.md", data)
		if lean := parseLean("pages/fuzz.md", data); !reflect.DeepEqual(pg, lean) {
			t.Fatalf("the lean parse differs:\nfull %+v\nlean %+v", pg, lean)
		}
		var edits []TargetEdit
		for _, l := range pg.Links {
			if l.Start < 0 || l.End > len(data) || l.Start > l.End {
				t.Fatalf("link %+v out of bounds (%d bytes)", l, len(data))
			}
			if string(data[l.Start:l.End]) != l.Raw {
				t.Fatalf("Raw %q but offsets give %q", l.Raw, data[l.Start:l.End])
			}
			if l.Line < 1 || l.Line > strings.Count(s, "\n")+1 {
				t.Fatalf("line %d out of range", l.Line)
			}
			if l.TargetStart < 0 {
				continue
			}
			if l.TargetStart < l.Start || l.TargetEnd > l.End || l.TargetStart > l.TargetEnd {
				t.Fatalf("target range %d-%d outside link %d-%d", l.TargetStart, l.TargetEnd, l.Start, l.End)
			}
			written := string(data[l.TargetStart:l.TargetEnd])
			if l.Kind == KindWiki {
				if written != l.Target {
					t.Fatalf("wikilink target %q, offsets give %q", l.Target, written)
				}
				if l.Target != "" && !strings.ContainsAny(l.Target, "|#^\r\n") && !strings.Contains(l.Target, "]]") && utf8.ValidString(l.Target) {
					edits = append(edits, TargetEdit{Link: l, Target: l.Target})
				}
			}
		}
		for _, h := range pg.Headings {
			if h.Start < 0 || h.End > len(data) || h.Start > h.End {
				t.Fatalf("heading %+v out of bounds", h)
			}
		}
		if len(edits) > 0 {
			out, err := Rewrite(data, edits)
			if err != nil {
				t.Fatalf("identity rewrite failed: %v", err)
			}
			if string(out) != s {
				t.Fatalf("identity rewrite changed the text:\n%q\n%q", s, out)
			}
		}
	})
}

// FuzzResolve: resolution never panics and a resolved path is one of the
// files; a file always resolves by its own path.
func FuzzResolve(f *testing.F) {
	f.Add("pages/a/Foo.md", "Foo", "pages/b/x.md")
	f.Add("pages/Ünïcode.md", "../x/../Ünïcode", "pages/q/r.md")
	f.Fuzz(func(t *testing.T, file, target, from string) {
		if !utf8.ValidString(file) || file == "" {
			return
		}
		r := NewResolver([]string{file, "pages/other.md"}, map[string][]string{"pages/other.md": {target}})
		res := r.Resolve(from, target)
		if res.Path != "" && res.Path != file && res.Path != "pages/other.md" && res.Path != from {
			t.Fatalf("resolved to %q, not a file", res.Path)
		}
		if !strings.HasPrefix(file, ".") && !strings.HasPrefix(file, "/") && !strings.Contains(file, "//") && strings.TrimSpace(file) == file {
			if got := r.Resolve(from, file); got.Path == "" {
				t.Fatalf("file %q does not resolve by its own path", file)
			}
		}
	})
}
