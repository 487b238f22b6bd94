package eval

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Claude Code session transcripts
//
// Claude Code writes one JSONL file per session under
// ~/.claude/projects/<project path with "/" as "-">/<session id>.jsonl
// (sub-agents, in newer versions, under <session id>/subagents/). The format
// is internal to Claude Code and undocumented by Anthropic; what this reader
// relies on was confirmed from community references: the transcript-format
// notes of DRMacIver/claude-reliability (notes/transcript-format.md, Claude
// Code 2.1.12), Huntehhh/claude-code-chat (docs/claude-cli-jsonl-format.md)
// and skillsynchq/txcript (docs/formats/claude-code.md):
//
//   - each line is an object with "type" ("user", "assistant", "summary",
//     "system", "file-history-snapshot", ...), "sessionId", "timestamp"
//     (ISO 8601), "uuid"/"parentUuid", "cwd", "version", "isSidechain",
//     "isMeta";
//   - "message" holds an Anthropic Messages API message: "role" and
//     "content", a string or an array of blocks: {"type":"text","text"},
//     {"type":"tool_use","id","name","input"} (assistant) and
//     {"type":"tool_result","tool_use_id","content","is_error"} (user);
//   - MCP tools appear as "mcp__<server>__<tool>"; the built-in Read tool
//     has input {"file_path": absolute path}.
//
// A person's question is a user line that is not meta, not a sidechain
// (unless the whole file is a sub-agent's), and carries text rather than
// tool results. The exchange runs to the next question; the answer is the
// assistant text after its last tool call.

// TranscriptStats describes what was read from transcripts.
type TranscriptStats struct {
	Files int `json:"files"`
	// Sessions is the number of sessions that used this wiki (an llmwiki
	// MCP tool, or a built-in Read or Grep of a file under the wiki root).
	Sessions int `json:"sessions"`
	// Exchanges is the number of questions in them that used the wiki;
	// Duplicates those already in the audit log (filed with file_answer);
	// Used the rest, which eval adds.
	Exchanges  int `json:"exchanges"`
	Duplicates int `json:"duplicates"`
	Used       int `json:"used"`
	// Torn and Bad count lines that did not parse (torn: the last line).
	Torn int `json:"torn"`
	Bad  int `json:"bad"`
}

// wikiTools are tool names that mark a transcript session as using an
// llmwiki server even when the MCP server has another name.
var wikiTools = map[string]bool{
	"load_project": true, "read_page": true, "list_pages": true, "gather_sources": true,
	"search_wiki": true, "file_answer": true, "lint_findings": true, "validate_structure": true,
	"submit_lint_findings": true, "dismiss_lint_findings": true,
}

type ccLine struct {
	Type        string    `json:"type"`
	SessionID   string    `json:"sessionId"`
	Timestamp   time.Time `json:"timestamp"`
	IsMeta      bool      `json:"isMeta"`
	IsSidechain bool      `json:"isSidechain"`
	Cwd         string    `json:"cwd"`
	Version     string    `json:"version"`
	Message     struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type ccToolUse struct {
	name   string
	input  map[string]any
	result string
	isErr  bool
}

type ccExchange struct {
	session, client string
	question        string
	start, end      time.Time
	uses            []*ccToolUse
	texts           []string // assistant text after the last tool call
	allTexts        []string
}

// ReadTranscripts reads Claude Code transcripts under dir (a folder searched
// recursively for *.jsonl, or one file) and returns the questions of
// sessions that used the wiki st, starting at or after since.
func ReadTranscripts(dir string, st *wiki.Store, since time.Time) ([]*Question, TranscriptStats, error) {
	var stats TranscriptStats
	var files []string
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, stats, store.Errorf(store.CodeNotFound, "transcripts folder %s cannot be read", filepath.Base(dir))
	}
	if fi.IsDir() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	} else {
		files = []string{dir}
	}
	sort.Strings(files)
	var out []*Question
	for _, f := range files {
		exs, err := readTranscriptFile(f, &stats)
		if err != nil {
			continue
		}
		stats.Files++
		used := false
		for _, ex := range exs {
			if !ex.usesWiki(st) || (!since.IsZero() && ex.start.Before(since)) {
				continue
			}
			used = true
			stats.Exchanges++
			out = append(out, ex.toQuestion(st))
		}
		if used {
			stats.Sessions++
		}
	}
	return out, stats, nil
}

func readTranscriptFile(name string, stats *TranscriptStats) ([]*ccExchange, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []*ccLine
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		b, err := readLongLine(br)
		if errors.Is(err, errLineTooLong) {
			stats.Bad++
			continue
		}
		if len(b) > 0 {
			complete := b[len(b)-1] == '\n'
			b = bytes.TrimSpace(b)
			if len(b) > 0 {
				var l ccLine
				if json.Unmarshal(b, &l) != nil {
					if complete {
						stats.Bad++
					} else {
						stats.Torn++
					}
				} else if l.Type == "user" || l.Type == "assistant" {
					lines = append(lines, &l)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	allSide := len(lines) > 0
	for _, l := range lines {
		if !l.IsSidechain {
			allSide = false
		}
	}
	session := ""
	var out []*ccExchange
	var cur *ccExchange
	uses := map[string]*ccToolUse{}
	for _, l := range lines {
		if session == "" && l.SessionID != "" {
			session = l.SessionID
			if allSide {
				session += "/" + strings.TrimSuffix(filepath.Base(name), ".jsonl")
			}
		}
		blocks, text := contentBlocks(l.Message.Content)
		switch l.Type {
		case "user":
			hasResult := false
			for _, b := range blocks {
				if b.Type == "tool_result" {
					hasResult = true
					if u := uses[b.ToolUseID]; u != nil {
						u.isErr = b.IsError
						u.result = resultText(b.Content)
					}
				}
			}
			if hasResult || l.IsMeta || (l.IsSidechain && !allSide) {
				break
			}
			q := strings.TrimSpace(text)
			if q == "" || strings.HasPrefix(q, "<command-") || strings.HasPrefix(q, "<local-command") || strings.HasPrefix(q, "Caveat:") {
				break
			}
			cur = &ccExchange{session: session, question: q, start: l.Timestamp, end: l.Timestamp}
			if l.Version != "" {
				cur.client = "claude-code " + l.Version
			}
			out = append(out, cur)
		case "assistant":
			if cur == nil {
				break
			}
			for _, b := range blocks {
				switch b.Type {
				case "text":
					if t := strings.TrimSpace(b.Text); t != "" {
						cur.texts = append(cur.texts, t)
						cur.allTexts = append(cur.allTexts, t)
					}
				case "tool_use":
					u := &ccToolUse{name: b.Name, input: b.Input}
					uses[b.ID] = u
					cur.uses = append(cur.uses, u)
					cur.texts = nil
				}
			}
		}
		// The exchange lasts until its last assistant message or tool result
		// (meta and command lines do not extend it).
		if cur != nil && (l.Type == "assistant" || hasToolResult(blocks)) && l.Timestamp.After(cur.end) {
			cur.end = l.Timestamp
		}
	}
	return out, nil
}

// MaxTranscriptLine is the longest transcript line read, in bytes; a longer
// one (a pasted image, a huge tool result) is skipped and counted as bad.
const MaxTranscriptLine = 32 << 20

var errLineTooLong = errors.New("transcript line too long")

// readLongLine reads one line with its newline (none at EOF), or drains a
// line over MaxTranscriptLine and returns errLineTooLong.
func readLongLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxTranscriptLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

// contentBlocks decodes a message's content: a string, or an array of
// blocks. text joins the text blocks.
func contentBlocks(raw json.RawMessage) ([]ccBlock, string) {
	if len(raw) == 0 {
		return nil, ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil, s
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, ""
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return blocks, strings.Join(texts, "\n")
}

func hasToolResult(blocks []ccBlock) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

func resultText(raw json.RawMessage) string {
	_, t := contentBlocks(raw)
	return t
}

// wikiTool returns the llmwiki tool name of an MCP tool use
// ("mcp__llmwiki__read_page" -> "read_page"), or "".
func wikiTool(name string) string {
	if !strings.HasPrefix(name, "mcp__") {
		return ""
	}
	i := strings.LastIndex(name, "__")
	if i < len("mcp__") {
		return "" // "mcp__x": no server part
	}
	server, tool := name[len("mcp__"):i], name[i+2:]
	if wikiTools[tool] || strings.Contains(strings.ToLower(server), "llmwiki") {
		return tool
	}
	return ""
}

// underRoot returns the project-relative path of an absolute host path
// inside the wiki, or "".
func underRoot(st *wiki.Store, p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	rel, err := filepath.Rel(st.Dir(), filepath.Clean(p))
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	clean, err := wiki.CleanPath(filepath.ToSlash(rel))
	if err != nil {
		return ""
	}
	return clean
}

func (ex *ccExchange) usesWiki(st *wiki.Store) bool {
	for _, u := range ex.uses {
		if u.isErr {
			continue
		}
		if wikiTool(u.name) != "" {
			return true
		}
		switch u.name {
		case "Read", "Grep", "Glob":
			if underRoot(st, inputString(u.input, "file_path")) != "" || underRoot(st, inputString(u.input, "path")) != "" {
				return true
			}
		}
	}
	return false
}

func inputString(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// question turns an exchange into a Question.
func (ex *ccExchange) toQuestion(st *wiki.Store) *Question {
	q := &Question{Source: "claude-transcript", Session: ex.session, Client: ex.client, Question: ex.question,
		Start: ex.start, End: ex.end, Searches: nil}
	answer := strings.Join(ex.texts, "\n\n")
	if answer == "" {
		answer = strings.Join(ex.allTexts, "\n\n")
	}
	q.Answer = answer
	read := func(rel string) {
		switch {
		case isPageLayer(rel):
			q.PagesRead = addUnique(q.PagesRead, rel)
		case isSourceLayer(rel):
			q.SourcesRead = addUnique(q.SourcesRead, rel)
		}
		q.seen = append(q.seen, rel)
	}
	for _, u := range ex.uses {
		q.Calls++
		if u.isErr {
			continue
		}
		switch tool := wikiTool(u.name); tool {
		case "load_project":
			q.seen = append(q.seen, "schema.md", "guidelines.md", "context.md")
		case "read_page":
			if p := inputString(u.input, "path"); p != "" {
				if rel := resolveRead(st, p); rel != "" {
					read(rel)
				}
			} else if s := cmp.Or(inputString(u.input, "page"), inputString(u.input, "slug")); s != "" {
				// "slug" is read_page's name for a page in transcripts
				// recorded before the wire vocabulary named it "page".
				if rel, err := st.ResolvePage(s); err == nil {
					read(rel)
				}
			}
		case "gather_sources":
			for _, p := range resultPaths(u.result, "sources", true) {
				read(p)
			}
		case "search_wiki":
			if s := inputString(u.input, "query"); s != "" {
				q.Searches = append(q.Searches, s)
			}
			q.SearchResults = addUnique(q.SearchResults, resultPaths(u.result, "", false)...)
		case "file_answer":
			q.Topic = inputString(u.input, "topic")
			if list, ok := u.input["citations"].([]any); ok {
				q.Citations = q.Citations[:0]
				for _, x := range list {
					m, _ := x.(map[string]any)
					q.Citations = append(q.Citations, CitationCheck{Path: inputString(m, "path"), Quote: inputString(m, "quote")})
				}
			}
			if fq := inputString(u.input, "question"); fq != "" {
				q.filedQuestion = fq
			}
			if fa := inputString(u.input, "answer"); fa != "" && answer == "" {
				q.Answer = fa
			}
		case "":
			switch u.name {
			case "Read":
				if rel := underRoot(st, inputString(u.input, "file_path")); rel != "" {
					read(rel)
				}
			case "Grep", "Glob":
				if s := inputString(u.input, "pattern"); s != "" {
					q.Searches = append(q.Searches, s)
				}
			}
		}
	}
	if q.Searches == nil {
		q.Searches = []string{}
	}
	// Without file_answer there are no quotes: a file read counts as cited
	// when the answer names it (its path, its file name, or [[its slug]]).
	low := strings.ToLower(q.Answer)
	for _, p := range append(append([]string{}, q.PagesRead...), q.SourcesRead...) {
		base := strings.ToLower(filepath.Base(p))
		slug := strings.TrimSuffix(base, ".md")
		if strings.Contains(low, strings.ToLower(p)) || strings.Contains(low, base) || strings.Contains(low, "[["+slug) {
			q.cited = append(q.cited, p)
		}
	}
	q.DurationMS = float64(q.End.Sub(q.Start).Microseconds()) / 1000
	return q
}

// resolveRead returns the file a read_page path argument named, as the
// store resolves it (a path, else a page by slug or title), or "".
func resolveRead(st *wiki.Store, name string) string {
	rel, err := wiki.CleanPath(strings.TrimPrefix(strings.TrimSpace(name), "./"))
	if err == nil {
		if _, serr := st.Root().Stat(rel); serr == nil {
			return rel
		}
	}
	if p, perr := st.ResolvePage(name); perr == nil {
		return p
	}
	return ""
}

// resultPaths pulls "path" values out of a tool result's JSON text: those in
// the array named list (any array when list is ""), only entries with
// content when needContent.
func resultPaths(text, list string, needContent bool) []string {
	var m map[string]any
	if json.Unmarshal([]byte(text), &m) != nil {
		return nil
	}
	var out []string
	for k, v := range m {
		arr, ok := v.([]any)
		if !ok || (list != "" && k != list) {
			continue
		}
		for _, x := range arr {
			e, _ := x.(map[string]any)
			p, _ := e["path"].(string)
			if p == "" {
				continue
			}
			if needContent {
				if c, _ := e["content"].(string); c == "" {
					continue
				}
			}
			if clean, err := wiki.CleanPath(p); err == nil {
				out = append(out, clean)
			}
		}
	}
	sort.Strings(out)
	return out
}

// dropCovered removes transcript questions the audit log already has: an
// audited answer filed between the exchange's start (less a minute) and end
// (plus a minute) whose question matches the person's words or the question
// the agent filed.
func dropCovered(tq, audited []*Question) ([]*Question, int) {
	var out []*Question
	dup := 0
	for _, t := range tq {
		covered := false
		for _, a := range audited {
			if a.End.Before(t.Start.Add(-time.Minute)) || a.End.After(t.End.Add(time.Minute)) {
				continue
			}
			if sameQuestion(a.Question, t.Question) || (t.filedQuestion != "" && sameQuestion(a.Question, t.filedQuestion)) {
				covered = true
				break
			}
		}
		if covered {
			dup++
			continue
		}
		out = append(out, t)
	}
	return out, dup
}
