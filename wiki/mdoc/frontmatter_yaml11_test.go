package mdoc

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// yaml11Titles are titles a YAML 1.1 reader takes for something other than
// a string when written plain, and a few it reads as strings.
var yaml11Titles = []struct {
	title  string
	quoted bool
}{
	{"yes", true}, {"No", true}, {"ON", true}, {"y", true}, {"~", true}, {"null", true}, {"Off", true},
	{"n", true}, {"Y", true}, {"NO", true}, {"True", true}, {"NULL", true}, {"12:30", true}, {"017", true},
	{"1_000", true}, {"0b101", true}, {"1.", true}, {".5", true}, {"-.inf", true}, {".NaN", true}, {"<<", true}, {"=", true},
	{"Yes we can", false}, {"yesterday", false}, {"Electron IPC", false}, {"Version 2", false}, {"12:30 meeting", false},
}

// TestFrontmatterQuotesYAML11Specials: a title "yes", "off", "~", "12:30" and
// the like is written quoted, by a new page's frontmatter (RenderDoc) and by a
// frontmatter edit (MergeFrontmatter), so YAML 1.1 readers (PyYAML, Jekyll's
// Psych) read the string; other titles stay plain. Cross-checked with PyYAML
// when python3 has it.
func TestFrontmatterQuotesYAML11Specials(t *testing.T) {
	old, err := ParseDoc("p.md", []byte("---\ntitle: Old\nsummary: s\n---\n# Body\n"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, c := range yaml11Titles {
		rendered, err := RenderDoc([]Field{{"title", c.title}, {"tags", []string{c.title}}}, nil, []byte("# Body\n"))
		if err != nil {
			t.Fatal(err)
		}
		merged, err := MergeFrontmatter(old, []Field{{"title", c.title}}, old.Body)
		if err != nil {
			t.Fatal(err)
		}
		for how, data := range map[string][]byte{"render": rendered, "merge": merged} {
			line := strings.SplitN(string(data), "\n", 3)[1]
			want := "title: " + c.title
			if c.quoted {
				want = `title: "` + c.title + `"`
			}
			if line != want {
				t.Errorf("%s %q: frontmatter line %q, want %q", how, c.title, line, want)
			}
			d, err := ParseDoc("p.md", data)
			if err != nil || d.Meta["title"] != c.title {
				t.Errorf("%s %q: read back as %#v (%v)", how, c.title, d.Meta["title"], err)
			}
			blocks = append(blocks, string(d.Block))
		}
		if c.quoted && !strings.Contains(string(rendered), `- "`+c.title+`"`) {
			t.Errorf("tag %q not quoted:\n%s", c.title, rendered)
		}
	}

	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import yaml").Run() != nil {
		t.Log("python3 with PyYAML not found; the cross-check with a YAML 1.1 reader is skipped")
		return
	}
	in, _ := json.Marshal(blocks)
	cmd := exec.Command(py, "-c", `import json, sys, yaml
def title(b):
    try:
        return repr(yaml.safe_load(b)["title"])
    except Exception as e:
        return "an error: " + str(e).splitlines()[0]
print(json.dumps([title(b) for b in json.load(sys.stdin)]))`)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("PyYAML: %v", err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		c := yaml11Titles[i/2]
		want := "'" + c.title + "'" // Python's repr of a str without quotes or backslashes
		if i < len(got) && got[i] != want {
			t.Errorf("PyYAML reads %q as %s, want the string %s", b, got[i], want)
		}
	}
}
