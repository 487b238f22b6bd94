package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"text/template"

	"gopkg.in/yaml.v3"
)

//go:embed *.md
var files embed.FS

// Completion kinds an argument can offer (see [Argument.Complete]).
const (
	CompletePage   = "page"   // page slugs
	CompleteSource = "source" // paths of files under sources/
	CompleteFolder = "folder" // folders under sources/
	CompleteTopic  = "topic"  // research note slugs, then page slugs
)

// Argument is one argument of a prompt.
type Argument struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	// Complete is the kind of completion offered for the argument's value:
	// one of the Complete* constants, or "" for none.
	Complete string `yaml:"complete"`
}

// Prompt is one workflow.
type Prompt struct {
	Name        string `yaml:"name"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	// Requires lists the tools the workflow cannot do without; the prompt is
	// offered only when the server registers all of them.
	Requires  []string   `yaml:"requires"`
	Arguments []Argument `yaml:"arguments"`
	// Body is the text/template source of the workflow.
	Body string `yaml:"-"`

	// tmpl parses Body on first use: a server lists prompts at start but
	// renders one only when asked.
	tmpl func() (*template.Template, error)
}

// All returns every prompt, sorted by name. It panics if an embedded
// file's frontmatter is malformed; a body that is not a valid template fails
// at its first render (a test renders them all).
func All() []*Prompt {
	entries, err := fs.Glob(files, "*.md")
	if err != nil {
		panic(err)
	}
	var out []*Prompt
	for _, name := range entries {
		data, err := files.ReadFile(name)
		if err != nil {
			panic(err)
		}
		p, err := parse(name, data)
		if err != nil {
			panic(err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get returns the prompt called name, or nil.
func Get(name string) *Prompt {
	for _, p := range All() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func parse(file string, data []byte) (*Prompt, error) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return nil, fmt.Errorf("%s: no frontmatter", file)
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, fmt.Errorf("%s: frontmatter not closed", file)
	}
	p := &Prompt{}
	dec := yaml.NewDecoder(strings.NewReader(s[4 : 4+end]))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("%s: frontmatter: %w", file, err)
	}
	if p.Name+".md" != file {
		return nil, fmt.Errorf("%s: name %q does not match the file", file, p.Name)
	}
	p.Body = strings.TrimLeft(s[4+end+5:], "\n")
	p.tmpl = sync.OnceValues(func() (*template.Template, error) {
		t, err := template.New(file).Option("missingkey=zero").Funcs(template.FuncMap{
			"tool": func(string) (string, error) { return "", nil },
			"has":  func(string) bool { return false },
		}).Parse(p.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return t, nil
	})
	return p, nil
}

// Available reports whether every tool the prompt requires is in tools.
func (p *Prompt) Available(tools []string) bool {
	have := set(tools)
	for _, r := range p.Requires {
		if !have[r] {
			return false
		}
	}
	return true
}

// Render returns the workflow text for the given argument values, naming
// only tools in tools. It fails when the body names a tool that is not
// offered (through {{tool}}) or a required argument is empty.
func (p *Prompt) Render(args map[string]string, tools []string) (string, error) {
	return p.renderIn(args, tools, "")
}

// renderIn is Render for a wiki whose review mode is known (mode, one of
// wiki.ReviewOff, ReviewAfter, ReviewBefore; "" when it is not): the text
// then names the mode the wiki is in.
func (p *Prompt) renderIn(args map[string]string, tools []string, mode string) (string, error) {
	for _, a := range p.Arguments {
		if a.Required && strings.TrimSpace(args[a.Name]) == "" {
			return "", fmt.Errorf("the %s prompt needs the argument %q (%s)", p.Name, a.Name, a.Description)
		}
	}
	known := map[string]bool{}
	for _, a := range p.Arguments {
		known[a.Name] = true
	}
	for k := range args {
		if !known[k] {
			return "", fmt.Errorf("the %s prompt has no argument %q", p.Name, k)
		}
	}
	return p.render(args, tools, mode)
}

// RenderGeneric renders the workflow for a sub-agent: arguments are left
// empty, so the text refers to "the source you were given" and the like.
func (p *Prompt) RenderGeneric(tools []string) (string, error) {
	return p.render(map[string]string{}, tools, "")
}

func (p *Prompt) render(args map[string]string, tools []string, mode string) (string, error) {
	have := set(tools)
	base, err := p.tmpl()
	if err != nil {
		return "", err
	}
	t, err := base.Clone()
	if err != nil {
		return "", err
	}
	t.Funcs(template.FuncMap{
		"tool": func(name string) (string, error) {
			if !have[name] {
				return "", fmt.Errorf("workflow %s names tool %s, which this server does not offer", p.Name, name)
			}
			return "`" + name + "`", nil
		},
		"has": func(name string) bool { return have[name] },
	})
	clean := map[string]string{}
	for k, v := range args {
		clean[k] = strings.TrimSpace(v)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, map[string]any{"Arg": clean, "Mode": mode}); err != nil {
		return "", err
	}
	return tidy(b.String()), nil
}

// tidy collapses the blank lines template actions leave behind.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
