package agents

import (
	"bytes"
	"encoding/json"

	"gopkg.in/yaml.v3"
)

// Field is one frontmatter key and its value (a string, bool or []string),
// kept in order.
type Field struct {
	Key   string
	Value any
}

// Frontmatter renders fields as a YAML frontmatter block ("---\n...---\n")
// with a real YAML encoder, so descriptions with colons or quotes stay
// valid.
func Frontmatter(fields ...Field) []byte {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: f.Key}
		v := &yaml.Node{}
		if err := v.Encode(f.Value); err != nil {
			panic(err)
		}
		n.Content = append(n.Content, k, v)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		panic(err)
	}
	enc.Close()
	return []byte("---\n" + b.String() + "---\n")
}

// JSON renders v as indented JSON with a final newline, without HTML
// escaping (a command like "a > b" stays readable).
func JSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Command is a slash command (Claude Code), workflow (Cline, Windsurf) or
// prompt file (VS Code, Continue) that hands one workflow to its agent.
type Command struct {
	// Name is the workflow name (ingest, build, query, lint, research).
	Name string
	// Description is one line.
	Description string
	// ArgumentHint shows what to type after the command.
	ArgumentHint string
	// Agent is the role of the agent that runs it.
	Agent string
}

// Commands returns one command per agent workflow.
func Commands() []Command {
	return []Command{
		{"ingest", "Ingest a source into the wiki (wiki-ingester)", "<path under sources/, or a file to add>", "ingester"},
		{"build", "Rebuild context.md from new sources (wiki-builder)", "[folder under sources/]", "builder"},
		{"query", "Answer a question from the wiki (wiki-librarian)", "<question>", "librarian"},
		{"lint", "Check the wiki and report findings (wiki-curator)", "[page slug]", "curator"},
		{"research", "Research a topic and save a research note (wiki-researcher)", "<topic>", "researcher"},
	}
}

// delegation is the body of a command that hands the work to agentRef.
func (c Command) delegation(agentRef, args string) string {
	what := map[string]string{
		"ingest":   "ingest this source into the llmwiki wiki",
		"build":    "rebuild the llmwiki wiki's context.md (limit it to this sources folder if one is given)",
		"query":    "answer this question from the llmwiki wiki, citing the pages it uses",
		"lint":     "lint the llmwiki wiki (only around this page if one is given) and report the findings",
		"research": "research this topic and save the findings as a research note in the llmwiki wiki",
	}[c.Name]
	out := "Use the " + agentRef + " sub-agent to " + what + ": " + args + "\n\n" +
		"Pass its report back to me as it is. The agent reaches the wiki only through the llmwiki MCP tools; do not edit wiki files yourself.\n"
	if c.Name == "ingest" || c.Name == "build" {
		out += "\nIts report says what waits for my review (review mode after: its writes, in the review queue; before: the change set it proposed): tell me, with how to review it (`llmwiki ui` or `llmwiki review`). Never approve a change set for me.\n"
	}
	return out
}
