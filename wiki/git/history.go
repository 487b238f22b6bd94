package git

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// History kinds: where a file's versions come from.
const (
	HistoryGit       = "git"
	HistorySnapshots = "snapshots"
)

// Paging bounds of a history.
const (
	DefaultHistoryLimit = 20
	MaxHistoryLimit     = 100
)

// Version is one version of a file: a commit that changed it (git on) or
// a stored snapshot, or the file on disk (git off).
type Version struct {
	Commit   string    `json:"commit,omitempty" jsonschema:"the git commit that wrote this version (short hash): pass it as at to read_page or as commit to restore_snapshot"`
	Snapshot string    `json:"snapshot,omitempty" jsonschema:"the stored version (git off): pass it as at to read_page or as snapshot to restore_snapshot"`
	Current  bool      `json:"current,omitempty" jsonschema:"true for the file as it is on disk now (git off)"`
	Deleted  bool      `json:"deleted,omitempty" jsonschema:"true when this commit deleted the file: there is no content to read at it"`
	Path     string    `json:"path" jsonschema:"the file in this version: an older name before a move"`
	Written  time.Time `json:"written,omitzero" jsonschema:"when this version was written (RFC 3339, UTC)"`
	Replaced time.Time `json:"replaced,omitzero" jsonschema:"when this stored version was replaced by the next one (snapshots only)"`
	Author   string    `json:"author,omitempty" jsonschema:"the person the commit is authored by (without the agent)"`
	Client   string    `json:"client,omitempty" jsonschema:"the editor agent that made the change, from the commit's Llmwiki-Client trailer or the agent named in the author"`
	Tool     string    `json:"tool,omitempty" jsonschema:"the llmwiki tool that made the change (Llmwiki-Tool trailer)"`
	Message  string    `json:"message,omitempty" jsonschema:"the commit's subject, the log.md line of the change"`
	Added    int       `json:"lines_added" jsonschema:"lines this version added to the one before"`
	Removed  int       `json:"lines_removed" jsonschema:"lines this version removed from the one before"`
	SHA256   string    `json:"sha256,omitempty" jsonschema:"sha256 of this version's content (as stored in git, before any checkout filter)"`

	full string // the full commit hash
	blob string // the version's blob id ("" when deleted)
}

// History is one page of a file's versions, newest first.
type History struct {
	// Path is the file whose history this is (its current name).
	Path string `json:"path" jsonschema:"the file whose versions these are, under its current name"`
	// Kind is HistoryGit or HistorySnapshots.
	Kind     string    `json:"history" jsonschema:"where the versions come from: git (commits) or snapshots (stored versions, when git is off)"`
	Versions []Version `json:"versions" jsonschema:"the versions, newest first"`
	// NextCursor continues the list; "" on the last page.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
	// Total counts every version when known cheaply: always from
	// snapshots, from git once the last page is reached (0: not counted).
	Total int `json:"total,omitempty" jsonschema:"how many versions there are in all; from git only given once the list reaches its end"`
}

// HistoryQuery asks for a page of a file's history.
type HistoryQuery struct {
	// Page is a page by slug, title, alias or path; Path a file (a page
	// that was moved or deleted is found by its old path). One is given.
	Page, Path string
	// Limit caps the versions (default DefaultHistoryLimit, at most
	// MaxHistoryLimit); Cursor is a NextCursor from the same query.
	Limit  int
	Cursor string
}

// PageHistory returns the history of the page or file q names: from git
// when r is not nil and schema.md's git mode is not off, else from the
// file's snapshots and the file on disk.
func PageHistory(ctx context.Context, st *wiki.Store, r *Repo, q HistoryQuery) (History, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	limit = min(limit, MaxHistoryLimit)
	useGit := r != nil && r.Mode() != wiki.GitOff
	rel, err := HistoryTarget(st, q.Page, q.Path, useGit)
	if err != nil {
		return History{}, err
	}
	if useGit {
		return r.FileHistory(ctx, rel, limit, q.Cursor)
	}
	return SnapshotHistory(st, rel, limit, q.Cursor)
}

// HistoryTarget resolves what a caller named to the file whose history to
// read: an existing page by any name, or a path (a page that was moved or
// deleted keeps its history under its old path). With git every file of
// the wiki has a history; without it only the files that are snapshotted.
func HistoryTarget(st *wiki.Store, page, path string, useGit bool) (string, error) {
	switch {
	case page != "" && path != "":
		return "", store.Errorf(store.CodeInvalid, "give page or path, not both")
	case page == "" && path == "":
		return "", store.Errorf(store.CodeInvalid, "name the page (page: a slug, title or alias) or the file (path: pages/x.md, context.md)")
	case page != "":
		if rel, err := st.ResolvePage(page); err == nil {
			return rel, nil
		}
		if rel, err := st.RestoreTarget(page); err == nil {
			return rel, nil // a deleted page with stored versions
		}
		if slug, err := mdoc.NormalizeSlug(page); err == nil && useGit {
			return wiki.PagePath(slug), nil // a deleted page git may remember
		}
		return "", store.Errorf(store.CodeNotFound, "page %q not found; use list_pages or search_wiki to find it, or give the path a moved or deleted page had (path: pages/x.md)", page)
	}
	rel, err := wiki.CleanPath(strings.TrimPrefix(path, "./"))
	if err != nil {
		return "", err
	}
	if wiki.LayerOf(rel) == wiki.LayerState {
		return "", store.Errorf(store.CodeInvalid, "%s is the server's own state, not part of the wiki", rel)
	}
	if !useGit {
		return st.RestoreTarget(rel)
	}
	if wiki.LayerOf(rel) == wiki.LayerPages {
		if _, err := st.Root().Stat(rel); err != nil {
			if p, err := st.ResolvePage(rel); err == nil {
				return p, nil
			}
		}
	}
	return rel, nil
}

// FileHistory lists the commits that changed rel (a path from the wiki
// root), newest first, following renames (`git log --follow`), limit at a
// time. The cursor holds the commit the first page was read from, so a
// commit made in between does not shift later pages.
func (r *Repo) FileHistory(ctx context.Context, rel string, limit int, cursor string) (History, error) {
	h := History{Path: rel, Kind: HistoryGit, Versions: []Version{}}
	skip, head, err := parseGitCursor(cursor)
	if err != nil {
		return h, err
	}
	if head == "" {
		head, err = r.head(ctx)
		if err != nil || head == "" {
			return h, err // no commit yet: an empty history
		}
	}
	list, err := r.follow(ctx, head, rel, skip, limit+1)
	if err != nil {
		return h, err
	}
	if len(list) > limit {
		list = list[:limit]
		h.NextCursor = gitCursor(skip+limit, head)
	} else {
		h.Total = skip + len(list)
	}
	r.fillSHA256(ctx, list)
	h.Versions = list
	return h, nil
}

// head is the full hash of HEAD, "" in a repository without commits.
func (r *Repo) head(ctx context.Context) (string, error) {
	out, err := r.git.Run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if gitcli.ExitCode(err) == 1 {
			return "", nil
		}
		return "", r.failed("read the current commit", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// failed logs a git failure with its details (which may hold host paths)
// and returns a clean error for a model or person.
func (r *Repo) failed(what string, err error) error {
	if r.st != nil {
		r.st.Logger().Error("git failed", "what", what, "err", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return store.Errorf(store.CodeCancelled, "cancelled while git was running (%s)", what)
	}
	return store.Errorf(store.CodeUnavailable, "git could not %s; run `llmwiki status` or `git status` in the wiki to see why", what)
}

// follow runs `git log --follow` over rel from commit head and parses it:
// n commits (all when n <= 0) after skipping skip.
func (r *Repo) follow(ctx context.Context, head, rel string, skip, n int) ([]Version, error) {
	nonce := newNonce()
	args := []string{"log", "--follow", "-z", "--raw", "--numstat", "--no-abbrev", "--no-color", "--no-ext-diff", "--no-textconv",
		"--format=" + logFormat(nonce)}
	if skip > 0 {
		args = append(args, "--skip="+strconv.Itoa(skip))
	}
	if n > 0 {
		args = append(args, "-n", strconv.Itoa(n))
	}
	args = append(args, head, "--", rel)
	out, err := r.git.Run(ctx, args...)
	if err != nil {
		return nil, r.failed("read the history of "+rel, err)
	}
	list := parseLog(out, nonce, rel)
	for i := range list {
		list[i].Path = r.wikiPath(list[i].Path)
	}
	return list, nil
}

// wikiPath turns a path from the repository's top into one from the wiki
// root (a path outside the wiki stays as git wrote it).
func (r *Repo) wikiPath(p string) string {
	return strings.TrimPrefix(p, r.prefix)
}

// fillSHA256 sets the sha256 of every version that has content, reading
// the blobs in one `git cat-file --batch`. A failure leaves them unset.
func (r *Repo) fillSHA256(ctx context.Context, list []Version) {
	var in bytes.Buffer
	var ids []string
	for _, v := range list {
		if v.blob != "" {
			in.WriteString(v.blob + "\n")
			ids = append(ids, v.blob)
		}
	}
	if len(ids) == 0 {
		return
	}
	out, err := r.git.RunWith(ctx, in.Bytes(), nil, "cat-file", "--batch")
	if err != nil {
		r.st.Logger().Warn("git cat-file failed; versions listed without sha256", "err", err)
		return
	}
	sums := parseBatch(out)
	for i := range list {
		list[i].SHA256 = sums[list[i].blob]
	}
}

// parseBatch reads `git cat-file --batch` output into the sha256 of each
// object's content, by object id. A missing object or a malformed answer
// ends the parse with what was read.
func parseBatch(out []byte) map[string]string {
	sums := map[string]string{}
	for len(out) > 0 {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			break
		}
		f := strings.Fields(string(out[:nl]))
		out = out[nl+1:]
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 {
			break
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size > len(out) {
			break
		}
		sums[f[0]] = store.SHA256Hex(out[:size])
		out = out[size:]
		if len(out) > 0 && out[0] == '\n' {
			out = out[1:]
		}
	}
	return sums
}

// logFormat is the --format of [Repo.follow]: each commit starts with a
// marker holding nonce and its header ends with another, so that no
// author, subject or trailer (untrusted text) can pass for the next
// record. Fields are NUL-separated.
func logFormat(nonce string) string {
	return "%x00" + startMarker(nonce) + "%x00%H%x00%aI%x00%an%x00%s%x00" +
		"%(trailers:key=Llmwiki-Client,valueonly,unfold,separator=%x1f)%x00" +
		"%(trailers:key=Llmwiki-Tool,valueonly,unfold,separator=%x1f)%x00" + endMarker(nonce) + "%x00"
}

func startMarker(nonce string) string { return "llmwiki-" + nonce + "-c" }
func endMarker(nonce string) string   { return "llmwiki-" + nonce + "-h" }

func newNonce() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var hashRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })

// parseLog parses the output of [Repo.follow] (nonce as given there): one
// Version per well-formed record, paths as git wrote them (from the
// repository's top). rel is the followed file's current name, the path of
// a record git gave no file for (a merge). Records that do not parse are
// skipped.
func parseLog(out []byte, nonce, rel string) []Version {
	start := []byte("\x00" + startMarker(nonce) + "\x00")
	end := []byte("\x00" + endMarker(nonce) + "\x00")
	var list []Version
	cur := rel // the file's name as of the record being read
	for _, rec := range bytes.Split(out, start)[1:] {
		hdr, diff, ok := bytes.Cut(rec, end)
		if !ok {
			continue
		}
		f := strings.Split(string(hdr), "\x00")
		if len(f) < 4 || !hashRe().MatchString(f[0]) {
			continue
		}
		when, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			continue
		}
		v := Version{full: f[0], Commit: f[0][:12], Written: when.UTC()}
		v.Author, v.Client = splitAuthor(clean(f[2]))
		v.Message = clean(f[3])
		if len(f) == 6 {
			if c, _, _ := strings.Cut(f[4], "\x1f"); clean(c) != "" {
				v.Client = clean(c)
			}
			v.Tool, _, _ = strings.Cut(f[5], "\x1f")
			v.Tool = clean(v.Tool)
		}
		d := parseDiff(diff)
		v.Path = cur
		if d.path != "" {
			v.Path = d.path
		}
		if d.old != "" {
			cur = d.old // older commits name the file as it was before the move
		} else {
			cur = v.Path
		}
		v.Added, v.Removed, v.Deleted = d.added, d.removed, d.deleted
		if !d.deleted && d.blob != "" && strings.Trim(d.blob, "0") != "" {
			v.blob = d.blob
		}
		list = append(list, v)
	}
	return list
}

// fileDiff is what a commit's raw and numstat entries say of the file.
type fileDiff struct {
	path, old, blob string
	added, removed  int
	deleted         bool
}

// parseDiff reads the first raw entry (":mode mode src dst STATUS\0path\0
// [path\0]") and the first numstat entry ("added\tremoved\tpath\0" or, for
// a rename, "added\tremoved\t\0old\0new\0") of one commit's -z output.
func parseDiff(b []byte) fileDiff {
	var d fileDiff
	var raw, num bool
	next := func() string {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			s := string(b)
			b = nil
			return s
		}
		s := string(b[:i])
		b = b[i+1:]
		return s
	}
	for len(b) > 0 {
		if b[0] == 0 || b[0] == '\n' {
			b = b[1:]
			continue
		}
		if b[0] == ':' {
			meta := strings.Fields(next())
			if len(meta) != 5 {
				return d
			}
			status := meta[4]
			p := next()
			if status != "" && (status[0] == 'R' || status[0] == 'C') {
				np := next()
				if !raw && status[0] == 'R' {
					d.old = p
				}
				p = np
			}
			if !raw {
				raw = true
				d.path, d.blob, d.deleted = p, meta[3], status == "D"
			}
			continue
		}
		tab1 := bytes.IndexByte(b, '\t')
		if tab1 < 0 {
			return d
		}
		rest := b[tab1+1:]
		tab2 := bytes.IndexByte(rest, '\t')
		if tab2 < 0 {
			return d
		}
		a, r := string(b[:tab1]), string(rest[:tab2])
		b = rest[tab2+1:]
		var p string
		if len(b) > 0 && b[0] == 0 {
			b = b[1:]
			next() // the old name
			p = next()
		} else {
			p = next()
		}
		if !num {
			num = true
			d.added, d.removed = count(a), count(r) // "-" for binary: 0
			if d.path == "" {
				d.path = p
			}
		}
	}
	return d
}

// count reads a numstat count; anything but a non-negative number is 0.
func count(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// splitAuthor splits "Ada Lovelace (claude-code)" into the person and the
// agent; a name without a parenthesised agent is the person alone.
func splitAuthor(name string) (person, agent string) {
	if strings.HasSuffix(name, ")") {
		if i := strings.LastIndex(name, " ("); i > 0 {
			return strings.TrimSpace(name[:i]), strings.TrimSpace(name[i+2 : len(name)-1])
		}
	}
	return name, ""
}

// maxField caps a text field taken from a commit.
const maxField = 300

// clean makes untrusted commit text fit to show: valid UTF-8, no control
// characters, one line, at most maxField characters.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxField {
		s = string([]rune(s)[:maxField-1]) + "…"
	}
	return s
}

// gitCursor is the cursor continuing at skip of the history read from
// head: opaque to callers.
func gitCursor(skip int, head string) string {
	return strconv.Itoa(skip) + "." + head
}

func parseGitCursor(c string) (int, string, error) {
	if c == "" {
		return 0, "", nil
	}
	n, head, ok := strings.Cut(c, ".")
	skip, err := strconv.Atoi(n)
	if !ok || err != nil || skip < 0 || strconv.Itoa(skip) != n || !hashRe().MatchString(head) {
		return 0, "", store.Errorf(store.CodeInvalid, "cursor is not one page_history returned: pass next_cursor as given, or omit cursor to start from the newest version")
	}
	return skip, head, nil
}

// IsCommitRef reports whether s can name a commit: 7 to 64 hex digits.
func IsCommitRef(s string) bool { return commitRefRe().MatchString(s) }

var commitRefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`) })

// ResolveCommit returns the full hash of the commit ref names (a hash or
// a unique prefix of at least 7 hex digits).
func (r *Repo) ResolveCommit(ctx context.Context, ref string) (string, error) {
	if !IsCommitRef(ref) {
		return "", store.Errorf(store.CodeInvalid, "commit %q is not a commit hash: give 7 or more hex digits as page_history lists them", ref)
	}
	ref = strings.ToLower(ref)
	out, err := r.git.Run(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		var ge *gitcli.Error
		if errors.As(err, &ge) {
			if strings.Contains(ge.Stderr, "ambiguous") {
				return "", store.Errorf(store.CodeInvalid, "commit %s is ambiguous: give more hex digits of it", ref)
			}
			return "", store.Errorf(store.CodeNotFound, "no commit %s in the wiki's repository; page_history lists the page's commits", ref)
		}
		return "", r.failed("look up commit "+ref, err)
	}
	full := strings.TrimSpace(string(out))
	if !hashRe().MatchString(full) {
		return "", store.Errorf(store.CodeNotFound, "no commit %s in the wiki's repository; page_history lists the page's commits", ref)
	}
	return full, nil
}

// FileVersion is a file as it was in one commit.
type FileVersion struct {
	// Commit is the commit's full hash; Path the file's name in it (an
	// older name when the file was moved since).
	Commit, Path string
	// Content is the file's bytes as git checks them out.
	Content []byte
}

// FileAt returns the file rel (its current name, from the wiki root) as
// it was in the commit ref names. When rel did not exist under that name
// then, the name it had is found by following its renames from HEAD.
func (r *Repo) FileAt(ctx context.Context, ref, rel string) (FileVersion, error) {
	full, err := r.ResolveCommit(ctx, ref)
	if err != nil {
		return FileVersion{}, err
	}
	if data, ok, err := r.show(ctx, full, rel); err != nil {
		return FileVersion{}, err
	} else if ok {
		return FileVersion{Commit: full, Path: rel, Content: data}, nil
	}
	notThere := store.Errorf(store.CodeNotFound, "%s did not exist in commit %s; page_history lists the commits that have it", rel, full[:12])
	head, err := r.head(ctx)
	if err != nil || head == "" {
		return FileVersion{}, notThere
	}
	list, err := r.follow(ctx, head, rel, 0, 0)
	if err != nil {
		return FileVersion{}, err
	}
	for _, v := range list {
		if v.full != full {
			if _, err := r.git.Run(ctx, "merge-base", "--is-ancestor", v.full, full); err != nil {
				continue
			}
		}
		// v is the newest change of the file at or before the commit.
		if v.Deleted {
			return FileVersion{}, store.Errorf(store.CodeNotFound, "%s was deleted as of commit %s (in %s); read an older commit from page_history", v.Path, full[:12], v.Commit)
		}
		data, ok, err := r.show(ctx, full, v.Path)
		if err != nil {
			return FileVersion{}, err
		}
		if ok {
			return FileVersion{Commit: full, Path: v.Path, Content: data}, nil
		}
		break
	}
	return FileVersion{}, notThere
}

// show returns the file rel (from the wiki root) in commit full, as git
// would check it out (`cat-file --filters`); ok is false when the commit
// has no such file.
func (r *Repo) show(ctx context.Context, full, rel string) ([]byte, bool, error) {
	out, err := r.git.Run(ctx, "cat-file", "--filters", full+":"+r.prefix+rel)
	if err != nil {
		if gitcli.ExitCode(err) == 128 {
			return nil, false, nil
		}
		return nil, false, r.failed(fmt.Sprintf("read %s at commit %s", rel, full[:12]), err)
	}
	return out, true, nil
}

// SnapshotHistory lists the versions of rel without git: the file on disk
// (when it exists) and its stored snapshots, newest first, limit at a time
// (the cursor is the position to continue at).
func SnapshotHistory(st *wiki.Store, rel string, limit int, cursor string) (History, error) {
	h := History{Path: rel, Kind: HistorySnapshots, Versions: []Version{}}
	skip := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 || strconv.Itoa(n) != cursor {
			return h, store.Errorf(store.CodeInvalid, "cursor is not one page_history returned: pass next_cursor as given, or omit cursor to start from the newest version")
		}
		skip = n
	}
	snaps, err := st.Snapshots(rel)
	if err != nil {
		return h, err
	}
	// all holds every version newest first; content is read only for the
	// page shown and the version below its last (for the line counts).
	type entry struct {
		v    Version
		read func() ([]byte, bool)
	}
	var all []entry
	cur, exists, err := st.ReadRaw(rel)
	if err != nil {
		return h, err
	}
	if exists {
		v := Version{Current: true, Path: rel}
		if len(snaps) > 0 {
			v.Written = snaps[0].Replaced
		} else if info, err := st.Root().Stat(rel); err == nil {
			v.Written = info.ModTime().UTC().Truncate(time.Second)
		}
		all = append(all, entry{v: v, read: func() ([]byte, bool) { return cur, true }})
	}
	for i, sn := range snaps {
		v := Version{Snapshot: sn.Snapshot, Path: sn.Path, Replaced: sn.Replaced}
		if i+1 < len(snaps) {
			v.Written = snaps[i+1].Replaced
		}
		p := sn.Snapshot
		all = append(all, entry{v: v, read: func() ([]byte, bool) {
			data, ok, err := st.ReadRaw(p)
			return data, ok && err == nil
		}})
	}
	h.Total = len(all)
	lo, hi := min(skip, len(all)), min(skip+limit, len(all))
	if hi < len(all) {
		h.NextCursor = strconv.Itoa(hi)
	}
	var next []byte
	nextOK := false
	if hi < len(all) {
		next, nextOK = all[hi].read()
	}
	// Walk the window oldest first, so each version is diffed against the
	// one below it.
	out := make([]Version, hi-lo)
	for i := hi - 1; i >= lo; i-- {
		v := all[i].v
		data, ok := all[i].read()
		if ok {
			v.SHA256 = store.SHA256Hex(data)
			var before []byte
			if nextOK {
				before = next
			}
			v.Added, v.Removed = lineCounts(before, data)
		}
		next, nextOK = data, ok
		out[i-lo] = v
	}
	h.Versions = out
	return h, nil
}

// lineCounts counts the lines new adds to and removes from old (0, 0 for
// text that is not UTF-8).
func lineCounts(old, new []byte) (added, removed int) {
	if !utf8.Valid(old) || !utf8.Valid(new) {
		return 0, 0
	}
	a, b := string(old), string(new)
	out, err := udiff.ToUnified("a", "b", a, udiff.Lines(a, b), 0)
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}
