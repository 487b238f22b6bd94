package git

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// syncState is what sync keeps between runs (sync.go).
type syncState struct {
	mu sync.Mutex // one sync at a time in this process; the project lock covers other processes

	// afterFetch, when set (tests only), runs after each fetch: the
	// remote moving between fetch and push.
	afterFetch func(attempt int)
}

// SyncStateFile records the last sync: when it succeeded, why the last one
// failed. It is per machine, like all of .llmwiki/.
const SyncStateFile = ".llmwiki/git/sync.json"

// syncRecord is [SyncStateFile]'s content.
type syncRecord struct {
	Remote string     `json:"remote,omitempty"`
	Synced *time.Time `json:"synced,omitempty"`
	Tried  time.Time  `json:"tried"`
	Error  string     `json:"error,omitempty"`
}

// DefaultNetworkTimeout bounds each fetch and push of a sync.
const DefaultNetworkTimeout = 2 * time.Minute

// SyncOptions says what one sync does.
type SyncOptions struct {
	// Push sends the local commits to the remote after the rebase.
	Push bool
	// OutsideEdits commits the edits made outside llmwiki under the wiki
	// root first, as one commit "sync | outside edits": only when a person
	// asked (`llmwiki sync`), never in the background.
	OutsideEdits bool
	// Tool names the sync in the audit log ("cli:sync", "sync").
	Tool string
	// Background skips the sync when another one runs in this process,
	// instead of waiting for it.
	Background bool
	// Timeout bounds each fetch and push (0: [DefaultNetworkTimeout]).
	Timeout time.Duration
}

// SourceRename is a source both sides added under one name with different
// bytes: the remote's keeps the name, the local one was saved under Local.
type SourceRename struct {
	Path  string `json:"path"`
	Local string `json:"local_path"`
}

// SyncResult is what one sync did.
type SyncResult struct {
	// Remote is the remote branch synced with ("origin/main").
	Remote string `json:"remote"`
	// Head is the short hash of the branch after the sync.
	Head string `json:"head,omitempty"`
	// OutsideEdits lists the files committed as outside edits.
	OutsideEdits []string `json:"outside_edits"`
	// Fetched counts the remote commits the sync brought in; Replayed the
	// local commits rebased on them; Pushed the commits sent.
	Fetched  int `json:"fetched"`
	Replayed int `json:"replayed"`
	Pushed   int `json:"pushed"`
	// Changed lists the files the sync changed on disk, from the wiki root.
	Changed []string `json:"changed"`
	// Merged lists the files both sides changed that merged without a
	// conflict (a clean text merge, log.md's union, a research note's
	// appended sections).
	Merged []string `json:"merged"`
	// Conflicts are the files both sides changed that did not merge: the
	// remote version is the file, the local one a snapshot.
	Conflicts []wiki.SyncConflict `json:"conflicts"`
	// Renamed are the sources both sides added under one name.
	Renamed []SourceRename `json:"renamed_sources"`
	// Ahead and Behind count the commits not yet pushed and not yet
	// pulled after the sync.
	Ahead  int `json:"ahead"`
	Behind int `json:"behind"`
	// Warnings are what went wrong without failing the sync.
	Warnings []string `json:"warnings"`
}

// remoteRef is the branch a sync follows.
type remoteRef struct {
	branch   string // the local branch ("main")
	remote   string // the remote's name ("origin")
	merge    string // the branch on the remote ("refs/heads/main")
	tracking string // where its commits are fetched to ("refs/remotes/origin/main")
}

func (rr remoteRef) String() string {
	return rr.remote + "/" + strings.TrimPrefix(rr.merge, "refs/heads/")
}

// Sync fetches the remote branch, rebases the wiki's local commits on it by
// the wiki's conflict rules (never a conflict marker in a file), checks the
// result out, brings the derived state in step and, with opt.Push, pushes.
// The git work on the working tree runs under the project lock, so no
// llmwiki write interleaves; fetch and push run outside it. A sync that
// fails leaves the branch and the files as they were, records why in
// [SyncStateFile] (shown by Status) and is retried by the next sync. The
// audit log gets one line for the sync (opt.Tool).
func (r *Repo) Sync(ctx context.Context, opt SyncOptions) (res SyncResult, err error) {
	if opt.Background {
		if !r.syncs.mu.TryLock() {
			return res, store.Errorf(store.CodeConflict, "a sync is already running")
		}
	} else {
		r.syncs.mu.Lock()
	}
	defer r.syncs.mu.Unlock()
	if opt.Tool == "" {
		opt.Tool = "sync"
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultNetworkTimeout
	}
	res = SyncResult{OutsideEdits: []string{}, Changed: []string{}, Merged: []string{}, Conflicts: []wiki.SyncConflict{}, Renamed: []SourceRename{}, Warnings: []string{}}
	call := store.CallFrom(ctx)
	own := call == nil
	if own {
		call = store.NewCall(opt.Tool, r.st.SessionID(), map[string]any{"push": opt.Push, "outside_edits": opt.OutsideEdits})
		ctx = store.WithCall(ctx, call)
	}
	defer func() {
		call.SetExtra("fetched", res.Fetched)
		call.SetExtra("replayed", res.Replayed)
		call.SetExtra("pushed", res.Pushed)
		call.SetExtra("conflicts", len(res.Conflicts))
		if len(res.Renamed) > 0 {
			call.SetExtra("renamed_sources", res.Renamed)
		}
		for _, w := range res.Warnings {
			call.AddWarning(w)
		}
		r.saveSyncRecord(res.Remote, err)
		if own {
			if aerr := r.st.Audit(call, err); aerr != nil {
				r.st.Logger().Error("audit line not written", "err", aerr)
			}
		}
	}()
	if err := r.st.CheckWritable(); err != nil {
		return res, err
	}
	rr, err := r.upstream(ctx)
	if err != nil {
		return res, err
	}
	res.Remote = rr.String()
	if opt.OutsideEdits {
		if err := r.st.Locked(ctx, func() error {
			paths, err := r.commitOutsideEdits(ctx)
			res.OutsideEdits = append(res.OutsideEdits, paths...)
			return err
		}); err != nil {
			return res, err
		}
	}
	var conflicts []pendingConflict
	for attempt := 0; ; attempt++ {
		theirs, err := r.fetch(ctx, rr, opt.Timeout)
		if err != nil {
			return res, err
		}
		if r.syncs.afterFetch != nil {
			r.syncs.afterFetch(attempt)
		}
		var cs []pendingConflict
		if err := r.st.Locked(ctx, func() error {
			var err error
			cs, err = r.integrate(ctx, call, theirs, &res)
			return err
		}); err != nil {
			return res, err
		}
		conflicts = append(conflicts, cs...)
		if len(res.Changed) > 0 {
			r.regenerateIndex(ctx, &res)
		}
		if !opt.Push {
			break
		}
		pushed, rejected, err := r.push(ctx, rr, theirs, opt.Timeout)
		if rejected && attempt == 0 {
			continue // the remote moved since the fetch: fetch and replay once more
		}
		if err != nil {
			r.recordConflicts(ctx, conflicts, &res)
			return res, err
		}
		res.Pushed = pushed
		break
	}
	r.recordConflicts(ctx, conflicts, &res)
	sort.Strings(res.Changed)
	res.Changed = slices.Compact(res.Changed)
	if head, err := r.syncRevParse(ctx, "HEAD"); err == nil && head != "" {
		res.Head = syncShortHash(head)
	}
	res.Ahead, res.Behind = r.aheadBehind(ctx, rr)
	return res, nil
}

// upstream finds the branch sync follows: the checked-out branch's
// upstream, else origin's branch of the same name.
func (r *Repo) upstream(ctx context.Context) (remoteRef, error) {
	var rr remoteRef
	b, err := r.syncRun(ctx, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil || b == "" {
		return rr, store.Errorf(store.CodeConflict, "no branch is checked out (a detached HEAD): check out the wiki's branch (git switch main), then sync")
	}
	rr.branch = b
	rr.remote, _ = r.syncRun(ctx, "config", "branch."+b+".remote")
	rr.merge, _ = r.syncRun(ctx, "config", "branch."+b+".merge")
	if rr.remote == "" || rr.remote == "." || rr.merge == "" {
		rr.remote, rr.merge = "", ""
		remotes, _ := r.syncRun(ctx, "remote")
		for _, name := range strings.Fields(remotes) {
			if name == "origin" {
				rr.remote, rr.merge = "origin", "refs/heads/"+b
			}
		}
		if rr.remote == "" {
			if remotes != "" {
				return rr, store.Errorf(store.CodeInvalid, "the branch %s has no upstream and there is no remote named origin: run `git branch --set-upstream-to REMOTE/%s`, then sync", b, b)
			}
			return rr, store.Errorf(store.CodeInvalid, "the wiki's repository has no remote to sync with: run `git remote add origin URL` (a shared repository), then sync")
		}
	}
	rr.tracking = "refs/remotes/" + rr.remote + "/" + strings.TrimPrefix(rr.merge, "refs/heads/")
	if full, err := r.syncRun(ctx, "rev-parse", "--symbolic-full-name", b+"@{upstream}"); err == nil && strings.HasPrefix(full, "refs/remotes/") {
		rr.tracking = full
	}
	return rr, nil
}

// fetch brings the remote branch's commits into its tracking ref and
// returns its hash ("" when the remote has no such branch yet).
func (r *Repo) fetch(ctx context.Context, rr remoteRef, timeout time.Duration) (string, error) {
	nctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := r.syncRun(nctx, "fetch", "--no-tags", "--quiet", "--no-write-fetch-head", rr.remote, "+"+rr.merge+":"+rr.tracking)
	if err != nil {
		var ge *gitcli.Error
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
			return "", nil // an empty remote, or the branch not pushed yet
		}
		r.st.Logger().Warn("git fetch failed", "remote", rr.remote, "err", err, "stderr", syncStderrOf(err))
		if ctx.Err() != nil {
			return "", store.Errorf(store.CodeCancelled, "the sync was cancelled while fetching; nothing was changed")
		}
		if nctx.Err() != nil {
			return "", store.Errorf(store.CodeUnavailable, "fetching from the remote %s took longer than %s: check the network; the wiki stays writable and the next sync tries again", rr.remote, timeout)
		}
		return "", store.Errorf(store.CodeUnavailable, "could not fetch from the remote %s (check the network, its address with `git remote -v`, and your access to it); the wiki stays writable and the next sync tries again", rr.remote)
	}
	return r.syncRevParse(ctx, rr.tracking)
}

// push sends the branch to the remote. rejected reports a push refused
// because the remote moved since the fetch.
func (r *Repo) push(ctx context.Context, rr remoteRef, theirs string, timeout time.Duration) (pushed int, rejected bool, err error) {
	head, err := r.syncRevParse(ctx, "HEAD")
	if err != nil || head == "" || head == theirs {
		return 0, false, err
	}
	if theirs != "" {
		if n, err := r.syncRun(ctx, "rev-list", "--count", theirs+".."+head); err == nil {
			pushed, _ = strconv.Atoi(n)
		}
		if pushed == 0 {
			return 0, false, nil // the remote is ahead or equal: nothing of ours to send
		}
	} else if n, err := r.syncRun(ctx, "rev-list", "--count", head); err == nil {
		pushed, _ = strconv.Atoi(n)
	}
	nctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := r.syncTopGit().Run(nctx, "push", "--porcelain", "--quiet", rr.remote, head+":"+rr.merge)
	if err == nil {
		_, _ = r.syncRun(ctx, "update-ref", "-m", "llmwiki sync: pushed", rr.tracking, head)
		return pushed, false, nil
	}
	text := string(out) + syncStderrOf(err)
	r.st.Logger().Warn("git push failed", "remote", rr.remote, "err", err, "output", text)
	switch {
	case ctx.Err() != nil:
		return 0, false, store.Errorf(store.CodeCancelled, "the sync was cancelled while pushing; the local commits are kept and the next sync pushes them")
	case strings.Contains(text, "[rejected]") || strings.Contains(text, "non-fast-forward") || strings.Contains(text, "fetch first"):
		return 0, true, store.Errorf(store.CodeConflict, "the remote %s kept changing while we pushed; the local commits are kept and the next sync pushes them", rr.remote)
	case strings.Contains(text, "[remote rejected]"):
		return 0, false, store.Errorf(store.CodeRefused, "the remote %s refused the push (a protected branch, or a branch checked out there); the local commits are kept", rr.remote)
	case nctx.Err() != nil:
		return 0, false, store.Errorf(store.CodeUnavailable, "pushing to the remote %s took longer than %s: check the network; the local commits are kept and the next sync pushes them", rr.remote, timeout)
	}
	return 0, false, store.Errorf(store.CodeUnavailable, "could not push to the remote %s (check the network and your access to it); the local commits are kept and the next sync pushes them", rr.remote)
}

// aheadBehind counts the commits HEAD has that the tracking ref lacks, and
// the other way round, as of the last fetch.
func (r *Repo) aheadBehind(ctx context.Context, rr remoteRef) (ahead, behind int) {
	if t, _ := r.syncRevParse(ctx, rr.tracking); t == "" {
		if n, err := r.syncRun(ctx, "rev-list", "--count", "HEAD"); err == nil {
			ahead, _ = strconv.Atoi(n)
		}
		return ahead, 0
	}
	out, err := r.syncRun(ctx, "rev-list", "--left-right", "--count", "HEAD..."+rr.tracking)
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(out)
	if len(f) == 2 {
		ahead, _ = strconv.Atoi(f[0])
		behind, _ = strconv.Atoi(f[1])
	}
	return ahead, behind
}

// saveSyncRecord remembers the outcome of a sync for Status.
func (r *Repo) saveSyncRecord(remote string, err error) {
	if r.st.ReadOnly() {
		return
	}
	rec := r.loadSyncRecord()
	now := r.st.Now()
	rec.Tried = now
	if remote != "" {
		rec.Remote = remote
	}
	if err == nil {
		rec.Synced, rec.Error = &now, ""
	} else {
		rec.Error = store.PublicMessage(err)
	}
	data, merr := json.Marshal(rec)
	if merr != nil {
		return
	}
	if werr := r.st.WriteState(SyncStateFile, append(data, '\n')); werr != nil {
		r.st.Logger().Warn("sync state not saved", "err", werr)
	}
}

func (r *Repo) loadSyncRecord() syncRecord {
	var rec syncRecord
	if data, ok, err := r.st.ReadState(SyncStateFile); err == nil && ok {
		_ = json.Unmarshal(data, &rec)
	}
	return rec
}

// syncStatus fills the sync half of st: remote, last sync, its error,
// ahead and behind.
func (r *Repo) syncStatus(ctx context.Context, st *Status) {
	rec := r.loadSyncRecord()
	if st.Mode != wiki.GitSync && rec.Tried.IsZero() {
		return
	}
	st.Synced, st.SyncError = rec.Synced, rec.Error
	rr, err := r.upstream(ctx)
	if err != nil {
		if st.SyncError == "" {
			st.SyncError = store.PublicMessage(err)
		}
		return
	}
	st.Remote = rr.String()
	st.Ahead, st.Behind = r.aheadBehind(ctx, rr)
}

// syncStderrOf returns what a failed git command printed (for the log only: it
// may hold host paths).
func syncStderrOf(err error) string {
	var ge *gitcli.Error
	if errors.As(err, &ge) {
		return ge.Stderr
	}
	return ""
}

// syncShortHash is a commit's hash as output shows it.
func syncShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
