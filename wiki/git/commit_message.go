package git

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Pending is one commit: its paths (from the wiki root), message and
// identities. A commit that failed is kept as a line of [PendingFile] and
// made by the next write.
type Pending struct {
	Paths   []string `json:"paths"`
	Message string   `json:"message"`
	// Author and Committer are "Name <email>".
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	Written        time.Time `json:"written"` // when the write was made: the author date
	// Audit is the audit line of the call that wrote the files.
	Audit string `json:"audit,omitempty"`
	// Blobs are the versions the write made, by path ("<mode> <blob>";
	// "" for a removed file), kept when the commit failed; nil: the files
	// as they are on disk.
	Blobs map[string]string `json:"blobs,omitempty"`
	// fromDisk: Blobs were read from disk for this commit (the person's
	// index is then refreshed from the files, stat data included).
	fromDisk bool
	// Error says why the commit failed.
	Error string `json:"error,omitempty"`
}

// The identity of llmwiki's commits when the repository has none.
const (
	fallbackName  = "llmwiki"
	fallbackEmail = "llmwiki@localhost"
)

// describe builds call's commit of paths: the author is the person's git
// identity with the agent's client named ("Ada Lovelace (claude-code)"),
// or the person alone for their own CLI or web action; the committer is the
// person; the message is the log.md line of the call, or "<tool> | <paths>",
// with the Llmwiki-* trailers.
func (r *Repo) describe(ctx context.Context, call *store.Call, paths []string) Pending {
	rec := store.AuditRecord{Time: time.Now().UTC()}
	if call != nil {
		rec = call.Record()
	}
	name, email := r.identity(ctx)
	p := Pending{Paths: paths, CommitterName: name, CommitterEmail: email, AuthorName: name, AuthorEmail: email, Written: rec.Time, Audit: rec.ID}
	if agent := agentOf(rec); agent != "" {
		p.AuthorName = name + " (" + agent + ")"
	}
	p.Message = Message(wiki.LogLineOf(call), rec, paths)
	return p
}

// byPerson reports whether tool is a person's own action: a CLI command
// or the web page.
func byPerson(tool string) bool {
	return strings.HasPrefix(tool, "cli:") || strings.HasPrefix(tool, "web:")
}

// agentOf is the client an author names: the client's name without its
// version, or "" for a person's own action.
func agentOf(rec store.AuditRecord) string {
	if byPerson(rec.Tool) || rec.Client == "" {
		return ""
	}
	return clientName(rec.Client)
}

// clientName drops a trailing version ("claude-code 1.0.3" → "claude-code").
func clientName(c string) string {
	c = strings.TrimSpace(c)
	if i := strings.LastIndexByte(c, ' '); i > 0 {
		v := strings.TrimPrefix(c[i+1:], "v")
		if v != "" && v[0] >= '0' && v[0] <= '9' {
			c = strings.TrimSpace(c[:i])
		}
	}
	return identName(c)
}

// identName keeps a name from breaking the author line.
func identName(c string) string {
	return strings.Map(func(r rune) rune {
		if r == '<' || r == '>' || r == '\n' || r == '\r' || r == 0 {
			return -1
		}
		return r
	}, c)
}

// maxSubjectPaths is how many paths a subject without a log line names.
const maxSubjectPaths = 3

// Message is a commit message: the subject (the log line, else "<tool> |
// <paths>") and the trailers naming the client, session, tool and audit
// line.
func Message(logLine string, rec store.AuditRecord, paths []string) string {
	subject := oneLine(logLine)
	if subject == "" {
		tool := rec.Tool
		if tool == "" {
			tool = "write"
		}
		shown := paths
		more := ""
		if len(shown) > maxSubjectPaths {
			shown, more = shown[:maxSubjectPaths], fmt.Sprintf(" and %d more", len(paths)-maxSubjectPaths)
		}
		subject = tool + " | " + strings.Join(shown, ", ") + more
	}
	var b strings.Builder
	b.WriteString(subject)
	b.WriteString("\n\n")
	trailer := func(k, v string) {
		if v = oneLine(v); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	trailer("Llmwiki-Client", rec.Client)
	trailer("Llmwiki-Session", rec.Session)
	trailer("Llmwiki-Tool", rec.Tool)
	trailer("Llmwiki-Audit", rec.ID)
	return b.String()
}

// oneLine folds s onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// identity is the person's git identity in the repository (user.name and
// user.email), or llmwiki's.
func (r *Repo) identity(ctx context.Context) (name, email string) {
	out, err := r.git.Run(ctx, "config", "--includes", "--get-regexp", `^user\.(name|email)$`)
	if err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "user.name":
				name = strings.TrimSpace(identName(v))
			case "user.email":
				email = strings.Trim(strings.TrimSpace(v), "<>")
			}
		}
	}
	if name == "" {
		name = fallbackName
	}
	if email == "" {
		email = fallbackEmail
	}
	return name, email
}

// env is the identity environment of p's commit.
func (p Pending) env() []string {
	date := ""
	if !p.Written.IsZero() {
		date = p.Written.UTC().Format(time.RFC3339)
	}
	env := []string{
		"GIT_AUTHOR_NAME=" + p.AuthorName, "GIT_AUTHOR_EMAIL=" + p.AuthorEmail,
		"GIT_COMMITTER_NAME=" + p.CommitterName, "GIT_COMMITTER_EMAIL=" + p.CommitterEmail,
	}
	if date != "" {
		env = append(env, "GIT_AUTHOR_DATE="+date)
	}
	return env
}
