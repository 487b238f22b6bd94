// Package eval is llmwiki's eval loop: it turns the audit log
// into numbers about how well the wiki answers questions, and writes what it
// learned back for people (.llmwiki/eval/eval-report.md and .json) and for
// agents (the "## Eval Insights" section of guidelines.md).
//
// The pieces:
//
//   - answers.go: the eval store. The file_answer tool records a question,
//     its answer and its citations (path + verbatim quote) under
//     .llmwiki/eval/answers/ and checks every quote at once with
//     [github.com/llmwiki/llmwiki/internal/quote].
//   - auditlog.go: a tolerant reader of .llmwiki/audit/*.jsonl (a torn last
//     line or a bad line is counted and skipped, never fatal).
//   - questions.go: groups the audit log by session and question: the calls
//     a session made up to and including each file_answer form one question.
//   - transcripts.go: Claude Code session transcripts as a second source of
//     questions when the audit log lacks them.
//   - metrics.go: wiki hit rate, wasted reads, durations, most-read files,
//     gaps and citation validity, with their exact definitions.
//   - report.go, guidelines.go: the outputs.
//   - judge.go: an optional model judge that checks answers against the full
//     text of the files read.
//
// The idea and the report's shape come from llm-kb's eval loop, described in
// the article "Building Karpathy's Knowledge Base — Part 5: The Eval Loop".
package eval
