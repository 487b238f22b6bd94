package transcript

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/internal/redact"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// Meta is what the rendering's frontmatter records besides the session.
type Meta struct {
	// Part is the part number (1 for the first capture; a session that
	// went on after a capture gets part 2 with the later turns).
	Part int
	// Project is the project folder's base name.
	Project string
	// Captured is when the capture ran.
	Captured time.Time
}

// Render renders turns [from, to) of s as a markdown source: YAML
// frontmatter (title, type: session, session_id, part, turns_from,
// turns_to, started, ended, project, captured, redacted and, when some
// were, redacted_kinds) and one section per turn. The whole rendering goes
// through the redactor once more (a secret Parse could not see whole);
// counts is what the parse and that pass replaced, by rule, as the
// frontmatter and the note under the title state it.
func Render(s *Session, from, to int, m Meta) (doc []byte, counts redact.Counts, err error) {
	red, err := redact.Default()
	if err != nil {
		return nil, nil, err
	}
	counts = redact.Counts{}
	for _, t := range s.Turns[from:to] {
		counts.Add(t.Redacted)
	}
	out, more, err := red.Redact(render(s, from, to, m, counts))
	if err != nil {
		return nil, nil, err
	}
	if more.Total() > 0 {
		counts.Add(more)
		if out, _, err = red.Redact(render(s, from, to, m, counts)); err != nil {
			return nil, nil, err
		}
	}
	return []byte(out), counts, nil
}

func render(s *Session, from, to int, m Meta, counts redact.Counts) string {
	turns := s.Turns[from:to]
	title := "Claude Code session " + s.ID
	if len(turns) > 0 && turns[0].Question != "" {
		title = "Session: " + oneLine(turns[0].Question, 70)
	}
	if m.Part > 1 {
		title += fmt.Sprintf(" (part %d)", m.Part)
	}
	fm := yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v any) {
		n := &yaml.Node{}
		_ = n.Encode(v)
		fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, n)
	}
	add("title", title)
	add("type", "session")
	add("session_id", s.ID)
	add("part", m.Part)
	add("turns_from", from+1)
	add("turns_to", to)
	if len(turns) > 0 && !turns[0].Time.IsZero() {
		add("started", turns[0].Time.UTC().Format(time.RFC3339))
	}
	if !s.End.IsZero() {
		add("ended", s.End.UTC().Format(time.RFC3339))
	}
	if m.Project != "" {
		add("project", m.Project)
	}
	add("captured", m.Captured.UTC().Format(time.RFC3339))
	add("redacted", counts.Total())
	if counts.Total() > 0 {
		add("redacted_kinds", map[string]int(counts))
	}
	out, err := yaml.Marshal(&fm)
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	b.WriteString("---\n")
	b.Write(out)
	b.WriteString("---\n\n# " + title + "\n\n")
	b.WriteString("A Claude Code session captured for a later ingest: the questions, the answers, and one line per tool call.\n")
	if n := counts.Total(); n > 0 {
		fmt.Fprintf(&b, "\n%d %s that looked like secrets %s replaced by [REDACTED:<kind>] before saving (%s).\n", n, english.Plural(n, "value", "values"), english.Plural(n, "was", "were"), counts)
	}
	for _, t := range turns {
		q := t.Question
		if q == "" {
			q = "(the session continued without a new question)"
		}
		fmt.Fprintf(&b, "\n## %d. %s\n\n", t.Index, oneLine(q, 80))
		b.WriteString("**Question:**\n\n" + mdoc.DemoteHeadings(q) + "\n")
		if len(t.Answer) > 0 {
			b.WriteString("\n**Answer:**\n\n" + mdoc.DemoteHeadings(strings.Join(t.Answer, "\n\n")) + "\n")
		}
		if len(t.Tools) > 0 {
			b.WriteString("\n**Tool calls:**\n\n")
			for _, tc := range t.Tools {
				line := "- `" + strings.ReplaceAll(tc.Name, "`", "'") + "`"
				if tc.Summary != "" {
					line += " " + strings.ReplaceAll(tc.Summary, "`", "'")
				}
				if tc.Result != "" {
					line += " → " + tc.Result
				}
				b.WriteString(line + "\n")
			}
		}
	}
	return b.String()
}
