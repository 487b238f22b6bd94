package git

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// clone is one person's machine: a clone of the shared repository holding
// a wiki, with its own store.
type clone struct {
	dir   string
	st    *wiki.Store
	repo  *Repo
	clock *fakeClock
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(hhmm string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := time.Parse("2006-01-02 15:04", "2026-03-01 "+hhmm)
	if err != nil {
		panic(err)
	}
	c.t = t
}

// gitT runs git in dir with the test's syncIdentity and fails the test on error.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "core.hooksPath=" + os.DevNull}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the sync tests need the git command line")
	}
}

// newTeam makes a bare repository and two clones of it, each a wiki: a is
// Ada's, b is Bob's. The first commit (the starting files) is on the
// remote; index.md, log.md and friends are shared from there.
func newTeam(t *testing.T) (bare string, a, b *clone) {
	t.Helper()
	needGit(t)
	root := t.TempDir()
	bare = filepath.Join(root, "remote.git")
	gitT(t, root, "init", "-q", "--bare", bare)
	ad := filepath.Join(root, "ada")
	gitT(t, root, "init", "-q", ad)
	if _, err := wiki.Init(ad); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ad, ".gitignore"), []byte("/.llmwiki/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, ad, "config", "user.name", "Ada Lovelace")
	gitT(t, ad, "config", "user.email", "ada@example.org")
	gitT(t, ad, "remote", "add", "origin", bare)
	gitT(t, ad, "add", "-A")
	gitT(t, ad, "commit", "-q", "-m", "init")
	gitT(t, ad, "push", "-q", "-u", "origin", "main")
	bd := filepath.Join(root, "bob")
	gitT(t, root, "clone", "-q", bare, bd)
	gitT(t, bd, "config", "user.name", "Bob Babbage")
	gitT(t, bd, "config", "user.email", "bob@example.org")
	if _, err := wiki.Init(bd); err != nil { // the .llmwiki/ state is per machine
		t.Fatal(err)
	}
	return bare, openClone(t, ad), openClone(t, bd)
}

func openClone(t *testing.T, dir string) *clone {
	t.Helper()
	c := &clone{dir: dir, clock: &fakeClock{}}
	c.clock.set("09:00")
	st, err := wiki.Open(dir, wiki.WithoutWatcher(), wiki.WithClock(c.clock.now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c.st = st
	repo, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	c.repo = repo
	return c
}

// commit commits every change of the clone, as the commit half does after
// each write.
func (c *clone) commit(t *testing.T, msg string) {
	t.Helper()
	gitT(t, c.dir, "add", "-A")
	gitT(t, c.dir, "commit", "-q", "--allow-empty", "-m", msg)
}

func (c *clone) sync(t *testing.T, push bool) SyncResult {
	t.Helper()
	res, err := c.repo.Sync(context.Background(), SyncOptions{Push: push, Tool: "cli:sync"})
	if err != nil {
		t.Fatalf("sync of %s: %v", filepath.Base(c.dir), err)
	}
	return res
}

func (c *clone) writePage(t *testing.T, slug, content string) {
	t.Helper()
	in := wiki.PageInput{Title: slug, Slug: slug, Content: content}
	if data, ok, _ := c.st.ReadRaw("pages/" + slug + ".md"); ok {
		in.BaseSHA256 = store.SHA256Hex(data)
	}
	if _, err := c.st.WritePage(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func (c *clone) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func (c *clone) log(t *testing.T, hhmm, title string) {
	t.Helper()
	c.clock.set(hhmm)
	if _, err := c.st.AppendLog(context.Background(), wiki.LogInput{Op: "note", Title: title}); err != nil {
		t.Fatal(err)
	}
}

// noMarkers fails when any file of the clone (outside .git) holds a
// conflict marker.
func noMarkers(t *testing.T, c *clone) {
	t.Helper()
	_ = filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, m := range []string{"<<<<<<<", ">>>>>>>", "|||||||"} {
			if strings.Contains(string(data), m) {
				t.Errorf("%s holds a conflict marker %q", p, m)
			}
		}
		return nil
	})
}

func assertClean(t *testing.T, c *clone) {
	t.Helper()
	if s := gitT(t, c.dir, "status", "--porcelain"); s != "" {
		t.Errorf("%s: working tree not clean after sync:\n%s", filepath.Base(c.dir), s)
	}
}

func TestSyncDifferentPagesBothLand(t *testing.T) {
	_, a, b := newTeam(t)
	a.writePage(t, "alpha", "Alpha body.\n")
	a.commit(t, "edit | alpha")
	if res := a.sync(t, true); res.Pushed != 1 || res.Replayed != 0 {
		t.Fatalf("ada's push: %+v", res)
	}
	if _, err := b.st.Pages(); err != nil { // the catalogue is loaded before the sync
		t.Fatal(err)
	}
	b.writePage(t, "beta", "Beta body.\n")
	b.commit(t, "edit | beta")
	res := b.sync(t, true)
	// Pushed: the replayed commit, and index.md regenerated with both pages.
	if res.Fetched != 1 || res.Replayed != 1 || res.Pushed < 1 || len(res.Conflicts) != 0 {
		t.Fatalf("bob's sync: %+v", res)
	}
	if !slices.Contains(res.Changed, "pages/alpha.md") {
		t.Errorf("changed = %v, want pages/alpha.md", res.Changed)
	}
	res = a.sync(t, false)
	if res.Fetched < 1 || res.Replayed != 0 {
		t.Fatalf("ada's pull: %+v", res)
	}
	for _, c := range []*clone{a, b} {
		if !strings.Contains(c.read(t, "pages/alpha.md"), "Alpha body.") || !strings.Contains(c.read(t, "pages/beta.md"), "Beta body.") {
			t.Errorf("%s lacks a page", c.dir)
		}
		idx := c.read(t, "index.md")
		if !strings.Contains(idx, "alpha") || !strings.Contains(idx, "beta") {
			t.Errorf("%s: index.md not regenerated with both pages:\n%s", filepath.Base(c.dir), idx)
		}
		pages, err := c.st.Pages()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range pages {
			names = append(names, p.Path)
		}
		if !slices.Contains(names, "pages/alpha.md") || !slices.Contains(names, "pages/beta.md") {
			t.Errorf("%s: catalogue = %v, want both pages", filepath.Base(c.dir), names)
		}
		noMarkers(t, c)
		assertClean(t, c)
	}
	if a.read(t, "index.md") != b.read(t, "index.md") {
		t.Errorf("index.md differs between the clones")
	}
	// The replayed commit keeps Bob's authorship and message.
	if got := gitT(t, b.dir, "log", "-1", "--format=%an|%s", "--", "pages/beta.md"); got != "Bob Babbage|edit | beta" {
		t.Errorf("replayed commit = %q", got)
	}
	// The audit log records the sync with the paths it changed.
	recs := auditRecords(t, b)
	var found bool
	for _, r := range recs {
		if r.Tool == "cli:sync" && slices.ContainsFunc(r.Writes, func(w store.WriteRecord) bool { return w.Path == "pages/alpha.md" }) {
			found = r.Extra["replayed"] == float64(1) && r.Extra["pushed"].(float64) >= 1
		}
	}
	if !found {
		t.Errorf("no audit line of bob's sync naming pages/alpha.md with replayed and pushed: %+v", recs)
	}
}

func auditRecords(t *testing.T, c *clone) []store.AuditRecord {
	t.Helper()
	var all []store.AuditRecord
	files, _ := filepath.Glob(filepath.Join(c.dir, store.AuditDir, "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := store.ParseAuditLines(data)
		all = append(all, recs...)
	}
	return all
}

const threeParas = "First paragraph, line one.\n\nSecond paragraph stays.\n\nMore text that stays.\n\nThird paragraph, line one.\n"

// shared writes the page on ada's side and brings it to both.
func shared(t *testing.T, a, b *clone, slug, content string) {
	t.Helper()
	a.writePage(t, slug, content)
	a.commit(t, "edit | "+slug)
	a.sync(t, true)
	b.sync(t, false)
	if !strings.Contains(b.read(t, "pages/"+slug+".md"), strings.SplitN(content, "\n", 2)[0]) {
		t.Fatal("the shared page did not reach bob")
	}
}

func TestSyncSamePageOverlappingKeepsRemoteAndSnapshot(t *testing.T) {
	_, a, b := newTeam(t)
	shared(t, a, b, "gamma", threeParas)
	a.clock.set("10:00")
	a.writePage(t, "gamma", strings.Replace(threeParas, "First paragraph, line one.", "First paragraph, Ada's words.", 1))
	a.commit(t, "edit | gamma by ada")
	a.sync(t, true)
	b.clock.set("10:01")
	bobs := strings.Replace(threeParas, "First paragraph, line one.", "First paragraph, Bob's words.", 1)
	b.writePage(t, "gamma", bobs)
	localVersion := b.read(t, "pages/gamma.md")
	b.commit(t, "edit | gamma by bob")
	res := b.sync(t, true)
	if len(res.Conflicts) != 1 {
		t.Fatalf("conflicts = %+v, want one", res.Conflicts)
	}
	c := res.Conflicts[0]
	if c.Path != "pages/gamma.md" || c.Snapshot == "" || c.LocalSHA256 != store.SHA256Hex([]byte(localVersion)) || !strings.HasPrefix(c.ID, "c-") || c.Summary == "" {
		t.Errorf("conflict = %+v", c)
	}
	if got := b.read(t, "pages/gamma.md"); !strings.Contains(got, "Ada's words") || strings.Contains(got, "Bob's words") {
		t.Errorf("the page is not the remote version:\n%s", got)
	}
	if got := b.read(t, c.Snapshot); got != localVersion {
		t.Errorf("the snapshot is not bob's version:\n%s", got)
	}
	if c.RemoteSHA256 != store.SHA256Hex([]byte(b.read(t, "pages/gamma.md"))) {
		t.Errorf("remote sha256 is not the file's")
	}
	all, open, err := b.st.SyncConflicts()
	if err != nil || len(all) != 1 || !open[0] {
		t.Errorf("recorded conflicts = %+v open %v err %v", all, open, err)
	}
	// Bob's version can be brought back with restore_snapshot.
	snaps, err := b.st.Snapshots("pages/gamma.md")
	if err != nil || !slices.ContainsFunc(snaps, func(s store.Snapshot) bool { return s.Snapshot == c.Snapshot }) {
		t.Errorf("snapshot %s not listed for the page: %v %v", c.Snapshot, snaps, err)
	}
	noMarkers(t, b)
	assertClean(t, b)
	a.sync(t, false)
	if a.read(t, "pages/gamma.md") != b.read(t, "pages/gamma.md") {
		t.Errorf("the clones disagree on the page after the sync")
	}
}

func TestSyncSamePageApartMergesCleanly(t *testing.T) {
	_, a, b := newTeam(t)
	shared(t, a, b, "delta", threeParas)
	a.clock.set("10:00")
	a.writePage(t, "delta", strings.Replace(threeParas, "First paragraph, line one.", "First paragraph, Ada's words.", 1))
	a.commit(t, "edit | delta by ada")
	a.sync(t, true)
	b.clock.set("10:05")
	b.writePage(t, "delta", strings.Replace(threeParas, "Third paragraph, line one.", "Third paragraph, Bob's words.", 1))
	b.commit(t, "edit | delta by bob")
	res := b.sync(t, true)
	if len(res.Conflicts) != 0 || !slices.Contains(res.Merged, "pages/delta.md") {
		t.Fatalf("sync = %+v, want a clean merge", res)
	}
	got := b.read(t, "pages/delta.md")
	if !strings.Contains(got, "Ada's words") || !strings.Contains(got, "Bob's words") {
		t.Errorf("merged page lacks an edit:\n%s", got)
	}
	if !strings.Contains(got, "updated: \"2026-03-01T10:05:00Z\"") && !strings.Contains(got, "updated: 2026-03-01T10:05:00Z") {
		t.Errorf("merged page does not carry the later updated time:\n%s", got)
	}
	noMarkers(t, b)
	a.sync(t, false)
	if a.read(t, "pages/delta.md") != got {
		t.Error("the clones disagree on the merged page")
	}
}

func TestSyncLogUnionInTimeOrder(t *testing.T) {
	_, a, b := newTeam(t)
	a.log(t, "10:00", "ada one")
	a.log(t, "10:02", "ada two")
	a.commit(t, "note | ada")
	a.sync(t, true)
	b.log(t, "10:01", "bob one")
	b.log(t, "10:03", "bob two")
	b.commit(t, "note | bob")
	b.sync(t, true)
	a.sync(t, false)
	want := []string{"ada one", "bob one", "ada two", "bob two"}
	for _, c := range []*clone{a, b} {
		var got []string
		_, entries := wiki.SplitLog([]byte(c.read(t, "log.md")))
		for _, e := range entries {
			got = append(got, e.Heading[strings.Index(e.Heading, "| ")+2:])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s log.md entries = %v, want %v", filepath.Base(c.dir), got, want)
		}
		noMarkers(t, c)
	}
	if a.read(t, "log.md") != b.read(t, "log.md") {
		t.Error("log.md differs between the clones")
	}
}

func TestSyncSourceAddedOnBothSidesKeepsBoth(t *testing.T) {
	_, a, b := newTeam(t)
	ctx := context.Background()
	if _, err := a.st.SaveSource(ctx, wiki.SourceInput{Path: "sources/notes.md", Content: "Ada's notes\n"}); err != nil {
		t.Fatal(err)
	}
	a.commit(t, "ingest | ada notes")
	a.sync(t, true)
	if _, err := b.st.SaveSource(ctx, wiki.SourceInput{Path: "sources/notes.md", Content: "Bob's notes\n"}); err != nil {
		t.Fatal(err)
	}
	b.commit(t, "ingest | bob notes")
	res := b.sync(t, true)
	if len(res.Renamed) != 1 || res.Renamed[0] != (SourceRename{Path: "sources/notes.md", Local: "sources/notes-local.md"}) {
		t.Fatalf("renamed = %+v", res.Renamed)
	}
	a.sync(t, false)
	for _, c := range []*clone{a, b} {
		if c.read(t, "sources/notes.md") != "Ada's notes\n" || c.read(t, "sources/notes-local.md") != "Bob's notes\n" {
			t.Errorf("%s: sources not both kept", filepath.Base(c.dir))
		}
	}
	// The sources record knows the files the sync brought: nothing is
	// reported as changed outside llmwiki.
	p, err := b.st.LoadProject(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range p.Problems {
		if strings.Contains(pr, "sources/notes") {
			t.Errorf("bob's load_project reports %q", pr)
		}
	}
}

func TestSyncResearchNoteUnion(t *testing.T) {
	_, a, b := newTeam(t)
	ctx := context.Background()
	if _, err := a.st.ResearchSave(ctx, wiki.ResearchInput{Topic: "raft", Heading: "start", Content: "Leaders."}); err != nil {
		t.Fatal(err)
	}
	a.commit(t, "research | raft")
	a.sync(t, true)
	b.sync(t, false)
	a.clock.set("11:00")
	if _, err := a.st.ResearchSave(ctx, wiki.ResearchInput{Topic: "raft", Heading: "ada", Content: "Terms, by Ada."}); err != nil {
		t.Fatal(err)
	}
	a.commit(t, "research | raft ada")
	a.sync(t, true)
	b.clock.set("11:01")
	if _, err := b.st.ResearchSave(ctx, wiki.ResearchInput{Topic: "raft", Heading: "bob", Content: "Logs, by Bob."}); err != nil {
		t.Fatal(err)
	}
	b.commit(t, "research | raft bob")
	res := b.sync(t, true)
	if len(res.Conflicts) != 0 {
		t.Fatalf("conflicts = %+v", res.Conflicts)
	}
	a.sync(t, false)
	for _, c := range []*clone{a, b} {
		got := c.read(t, "sources/research/raft.md")
		for _, w := range []string{"Leaders.", "Terms, by Ada.", "Logs, by Bob."} {
			if strings.Count(got, w) != 1 {
				t.Errorf("%s: research note holds %q %d times:\n%s", filepath.Base(c.dir), w, strings.Count(got, w), got)
			}
		}
		noMarkers(t, c)
	}
}

func TestSyncUnreachableRemoteThenRetry(t *testing.T) {
	bare, a, _ := newTeam(t)
	a.writePage(t, "epsilon", "Body.\n")
	a.commit(t, "edit | epsilon")
	gone := filepath.Join(t.TempDir(), "moved.git")
	gitT(t, a.dir, "remote", "set-url", "origin", gone)
	_, err := a.repo.Sync(context.Background(), SyncOptions{Push: true, Tool: "cli:sync"})
	if store.CodeOf(err) != store.CodeUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	if msg := store.PublicMessage(err); strings.Contains(msg, gone) || strings.Contains(msg, "/tmp") {
		t.Errorf("message shows a host path: %s", msg)
	}
	st := a.repo.Status(context.Background())
	if st.SyncError == "" || st.Remote != "origin/main" || st.Ahead != 1 {
		t.Errorf("status after failure = %+v", st)
	}
	// The wiki stays writable.
	a.writePage(t, "zeta", "Body.\n")
	a.commit(t, "edit | zeta")
	gitT(t, a.dir, "remote", "set-url", "origin", bare)
	res := a.sync(t, true)
	if res.Pushed != 2 {
		t.Errorf("pushed = %d, want 2", res.Pushed)
	}
	st = a.repo.Status(context.Background())
	if st.SyncError != "" || st.Synced == nil || st.Ahead != 0 || st.Behind != 0 {
		t.Errorf("status after retry = %+v", st)
	}
}

func TestSyncRejectedPushReplaysOnceMore(t *testing.T) {
	_, a, b := newTeam(t)
	b.writePage(t, "bobs", "Bob.\n")
	b.commit(t, "edit | bobs")
	b.repo.syncs.afterFetch = func(attempt int) {
		if attempt == 0 { // Ada pushes between Bob's fetch and push
			a.writePage(t, "adas", "Ada.\n")
			a.commit(t, "edit | adas")
			a.sync(t, true)
		}
	}
	res := b.sync(t, true)
	if res.Pushed < 1 || res.Replayed != 1 || res.Fetched != 1 {
		t.Fatalf("sync = %+v, want bob's commit replayed on ada's and pushed", res)
	}
	a.sync(t, false)
	for _, c := range []*clone{a, b} {
		for _, p := range []string{"pages/adas.md", "pages/bobs.md"} {
			if _, err := os.Stat(filepath.Join(c.dir, p)); err != nil {
				t.Errorf("%s lacks %s", filepath.Base(c.dir), p)
			}
		}
	}
}

func TestSyncOutsideEditsAndUnsavedEdit(t *testing.T) {
	_, a, b := newTeam(t)
	shared(t, a, b, "eta", threeParas)
	a.writePage(t, "eta", "Ada rewrote it.\n")
	a.commit(t, "edit | eta")
	a.sync(t, true)
	// Bob edits the page in his editor, outside llmwiki.
	path := filepath.Join(b.dir, "pages/eta.md")
	if err := os.WriteFile(path, []byte("---\ntitle: eta\n---\nBob's own edit.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := gitT(t, b.dir, "rev-parse", "HEAD")
	_, err := b.repo.Sync(context.Background(), SyncOptions{Tool: "sync", Background: true})
	if store.CodeOf(err) != store.CodeConflict || !strings.Contains(store.PublicMessage(err), "unsaved edit of pages/eta.md") {
		t.Fatalf("background sync err = %v", err)
	}
	if gitT(t, b.dir, "rev-parse", "HEAD") != head || !strings.Contains(b.read(t, "pages/eta.md"), "Bob's own edit.") {
		t.Fatal("a refused sync changed the branch or the file")
	}
	res, err := b.repo.Sync(context.Background(), SyncOptions{Tool: "cli:sync", OutsideEdits: true, Push: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.OutsideEdits, []string{"pages/eta.md"}) || len(res.Conflicts) != 1 {
		t.Fatalf("sync = %+v", res)
	}
	// The outside edit was committed by Bob, then lost to Ada's rewrite of
	// the same lines: it is the conflict's snapshot, and in the reflog.
	if got := b.read(t, res.Conflicts[0].Snapshot); !strings.Contains(got, "Bob's own edit.") {
		t.Errorf("snapshot = %q", got)
	}
	if got := gitT(t, b.dir, "log", "-g", "--format=%an|%s", "-5"); !strings.Contains(got, "Bob Babbage|"+OutsideEditsSubject) {
		t.Errorf("reflog = %s", got)
	}
	if !strings.Contains(b.read(t, "pages/eta.md"), "Ada rewrote it.") {
		t.Error("the page is not the remote version")
	}
	noMarkers(t, b)
	assertClean(t, b)
}

func TestSyncNoRemote(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", dir)
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "--allow-empty", "-m", "init")
	c := openClone(t, dir)
	_, err := c.repo.Sync(context.Background(), SyncOptions{})
	if err == nil || !strings.Contains(store.PublicMessage(err), "git remote add origin URL") {
		t.Fatalf("err = %v", err)
	}
}

func TestSyncPathOutsideWikiStops(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	gitT(t, root, "init", "-q", "--bare", bare)
	ad := filepath.Join(root, "ada")
	gitT(t, root, "init", "-q", ad)
	if _, err := wiki.Init(filepath.Join(ad, "wiki")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ad, "wiki/.gitignore"), []byte("/.llmwiki/\n"), 0o644)
	os.WriteFile(filepath.Join(ad, "README.md"), []byte("top\n"), 0o644)
	gitT(t, ad, "config", "user.name", "Ada")
	gitT(t, ad, "config", "user.email", "ada@example.org")
	gitT(t, ad, "remote", "add", "origin", bare)
	gitT(t, ad, "add", "-A")
	gitT(t, ad, "commit", "-q", "-m", "init")
	gitT(t, ad, "push", "-q", "-u", "origin", "main")
	bd := filepath.Join(root, "bob")
	gitT(t, root, "clone", "-q", bare, bd)
	gitT(t, bd, "config", "user.name", "Bob")
	gitT(t, bd, "config", "user.email", "bob@example.org")
	wiki.Init(filepath.Join(bd, "wiki"))
	a, b := openClone(t, filepath.Join(ad, "wiki")), openClone(t, filepath.Join(bd, "wiki"))
	os.WriteFile(filepath.Join(ad, "README.md"), []byte("ada\n"), 0o644)
	gitT(t, ad, "commit", "-q", "-am", "readme ada")
	a.sync(t, true)
	os.WriteFile(filepath.Join(bd, "README.md"), []byte("bob\n"), 0o644)
	b.writePage(t, "theta", "Body.\n")
	gitT(t, bd, "add", "-A")
	gitT(t, bd, "commit", "-q", "-m", "readme bob")
	head := gitT(t, bd, "rev-parse", "HEAD")
	_, err := b.repo.Sync(context.Background(), SyncOptions{Push: true})
	if store.CodeOf(err) != store.CodeConflict || !strings.Contains(store.PublicMessage(err), "README.md, outside the wiki") {
		t.Fatalf("err = %v", err)
	}
	if gitT(t, bd, "rev-parse", "HEAD") != head {
		t.Error("the branch moved")
	}
	// A change under the root only syncs, and the wiki's paths are from its root.
	gitT(t, bd, "reset", "-q", "--hard", "HEAD~1")
	b.writePage(t, "theta", "Body.\n")
	gitT(t, bd, "add", "-A")
	gitT(t, bd, "commit", "-q", "-m", "theta")
	res := b.sync(t, true)
	if !slices.Contains(res.Changed, "README.md") && res.Replayed != 1 {
		t.Errorf("sync = %+v", res)
	}
}
