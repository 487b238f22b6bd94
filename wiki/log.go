package wiki

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// LogOps is the fixed set of operations a log.md entry may name.
var LogOps = []string{"ingest", "build", "query", "lint", "research", "edit", "move", "restore", "eval", "note", "review"}

// Limits of a log entry.
const (
	MaxLogTitle   = 200  // characters
	MaxLogDetails = 4000 // characters
)

// LogInput is one log.md entry for [Store.AppendLog].
type LogInput struct {
	// Op is one of [LogOps].
	Op string
	// Title is one line.
	Title string
	// Details is optional markdown under the entry's heading.
	Details string
}

// LogWrite is the result of [Store.AppendLog].
type LogWrite struct {
	// Entry is the heading line written.
	Entry  string `json:"entry"`
	SHA256 string `json:"sha256"`
}

// RenderLogEntry renders one log.md entry, "## [YYYY-MM-DD HH:MM] op | title"
// followed by the details. It validates the input: op from [LogOps], a
// one-line title without control characters, and details in which every line
// that could read as a heading (and so as another entry) or open a fenced
// code block (which would run over the entries after it) is escaped with a
// backslash.
func RenderLogEntry(when string, in LogInput) (heading, entry string, err error) {
	op := strings.ToLower(strings.TrimSpace(in.Op))
	valid := false
	for _, o := range LogOps {
		valid = valid || o == op
	}
	if !valid {
		return "", "", store.Errorf(store.CodeInvalid, "op %q is not one of %s", in.Op, strings.Join(LogOps, ", "))
	}
	if !utf8.ValidString(in.Title) || !utf8.ValidString(in.Details) {
		return "", "", store.Errorf(store.CodeInvalid, "title and details must be valid UTF-8")
	}
	title := strings.TrimSpace(in.Title)
	if title == "" {
		return "", "", store.Errorf(store.CodeInvalid, "title is empty; say in a few words what was done")
	}
	if strings.ContainsFunc(title, unicode.IsControl) {
		return "", "", store.Errorf(store.CodeInvalid, "title must be one line without control characters; put more in details")
	}
	if utf8.RuneCountInString(title) > MaxLogTitle {
		return "", "", store.Errorf(store.CodeInvalid, "title is %d characters; the limit is %d (put more in details)", utf8.RuneCountInString(title), MaxLogTitle)
	}
	if utf8.RuneCountInString(in.Details) > MaxLogDetails {
		return "", "", store.Errorf(store.CodeTooLarge, "details are %d characters; the limit is %d", utf8.RuneCountInString(in.Details), MaxLogDetails)
	}
	heading = fmt.Sprintf("## [%s] %s | %s", when, op, title)
	var b strings.Builder
	b.WriteString(heading)
	b.WriteString("\n")
	if d := strings.TrimSpace(strings.ReplaceAll(in.Details, "\r\n", "\n")); d != "" {
		b.WriteString("\n")
		sc := bufio.NewScanner(strings.NewReader(d))
		sc.Buffer(make([]byte, 0, 64*1024), MaxLogDetails*4+16)
		for sc.Scan() {
			l := strings.Map(func(r rune) rune {
				if unicode.IsControl(r) && r != '\t' {
					return -1
				}
				return r
			}, sc.Text())
			if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "#") || strings.HasPrefix(t, "=") || strings.HasPrefix(t, "---") || new(mdoc.Fences).Line(t) == mdoc.Open {
				l = `\` + t
			}
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return heading, b.String(), nil
}

// AppendLog appends one entry to log.md through the audited writer. A log.md
// that does not end with a newline gets one first; entries are separated by a
// blank line.
func (s *Store) AppendLog(ctx context.Context, in LogInput) (LogWrite, error) {
	heading, entry, err := RenderLogEntry(s.Now().Format("2006-01-02 15:04"), in)
	if err != nil {
		return LogWrite{}, err
	}
	var out LogWrite
	err = s.Update(ctx, func(tx *store.Tx) error {
		sum, err := appendLogTx(tx, entry)
		out.SHA256 = sum
		return err
	})
	if err != nil {
		return LogWrite{}, err
	}
	out.Entry = heading
	return out, nil
}

// AppendLogTx appends one entry to log.md in tx, for a writer outside this
// package whose own transaction logs what it did (a review's revert), so the
// entry and the write land together.
func (s *Store) AppendLogTx(tx *store.Tx, in LogInput) (LogWrite, error) {
	heading, entry, err := RenderLogEntry(s.Now().Format("2006-01-02 15:04"), in)
	if err != nil {
		return LogWrite{}, err
	}
	sum, err := appendLogTx(tx, entry)
	if err != nil {
		return LogWrite{}, err
	}
	return LogWrite{Entry: heading, SHA256: sum}, nil
}

// appendLogTx appends a rendered entry ([RenderLogEntry]) to log.md in tx,
// separated from the one before by a blank line, and returns log.md's new
// sha256. Writers that log their own operation (context.md's build) call
// it in their transaction, so the entry and the write land together.
func appendLogTx(tx *store.Tx, entry string) (string, error) {
	heading, _, _ := strings.Cut(strings.TrimPrefix(entry, "## ["), "\n")
	store.CallFrom(tx.Context()).SetExtra(LogEntryKey, heading)
	cur, _, err := tx.Read("log.md")
	if err != nil {
		return "", err
	}
	sep := ""
	switch {
	case len(cur) == 0:
	case !bytes.HasSuffix(cur, []byte("\n")):
		sep = "\n\n"
	case !bytes.HasSuffix(cur, []byte("\n\n")):
		sep = "\n"
	}
	if err := tx.Append("log.md", []byte(sep+entry)); err != nil {
		return "", err
	}
	after, _, _ := tx.Read("log.md")
	return store.SHA256Hex(after), nil
}

// LogEntries returns the heading lines of the last n entries of log.md,
// oldest first.
func (s *Store) LogEntries(n int) []string {
	data, ok, err := s.ReadRaw("log.md")
	if err != nil || !ok {
		return nil
	}
	_, entries := SplitLog(data)
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Heading)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
