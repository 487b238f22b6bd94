// Package transcript reads a Claude Code session transcript (the JSON Lines
// file Claude Code keeps per session, ~/.claude/projects/<project>/<session
// id>.jsonl, and names in every hook's input as transcript_path; see
// https://code.claude.com/docs/en/hooks) and renders it as clean markdown
// for the wiki: each question, the answer, and the tool calls summarised in
// one line each (name, the argument that says what it did, and the size or
// error of the result, never the result itself). Thinking, system
// reminders, slash-command plumbing and sub-agent side chains are left out.
// Secrets are replaced by [REDACTED:<rule>] markers (internal/redact) in
// every text kept, before any cut, and once more over the whole rendering;
// the frontmatter says how many of which kind.
//
// The input is untrusted: lines that are not JSON, entries of unknown
// types, entries of another session and oversized lines are skipped and
// counted, never fatal (FuzzParse holds that).
package transcript
