package git

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// A .gitattributes from the remote changes the bytes git checks out and
// hashes (working-tree-encoding, ident, eol): it is left out, the person's
// own .gitattributes stays as it is, and the pages on disk are the bytes
// in git.
func TestHostileGitRemoteAttributes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ff    bool
		own   string // bob's own .gitattributes, shared before mallory's commit
		attrs map[string]string
	}{
		{name: "encoding fast-forward", ff: true, attrs: map[string]string{".gitattributes": "pages/*.md working-tree-encoding=UTF-16LE\n"}},
		{name: "encoding replay", attrs: map[string]string{".gitattributes": "pages/*.md working-tree-encoding=UTF-16LE\n"}},
		{name: "ident and eol in a folder", ff: true, attrs: map[string]string{"pages/.gitattributes": "*.md ident eol=crlf\n"}},
		{name: "the person's own changed", own: "*.png binary\n", attrs: map[string]string{".gitattributes": "*.md ident eol=crlf\n"}},
		{name: "the person's own deleted", own: "*.png binary\n", attrs: map[string]string{".gitattributes": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bare, _, b := newTeam(t)
			if tc.own != "" {
				writeT(t, filepath.Join(b.dir, ".gitattributes"), tc.own)
				b.commit(t, "attributes")
				b.sync(t, true)
			}
			page := "---\ntitle: enc\n---\nplain text $Id$\nsecond line\n"
			mallory(t, bare, func(dir string) {
				writeT(t, filepath.Join(dir, "pages", "enc.md"), page)
				gitT(t, dir, "add", "-A")
				for rel, data := range tc.attrs {
					if data == "" {
						gitT(t, dir, "rm", "-q", rel)
						continue
					}
					writeT(t, filepath.Join(dir, rel), data)
					gitT(t, dir, "add", rel)
				}
			})
			if !tc.ff {
				b.writePage(t, "bobs", "Bob's page.\n")
				b.commit(t, "edit | bobs")
			}
			res := b.sync(t, false)
			if got := b.read(t, "pages/enc.md"); got != page {
				t.Errorf("pages/enc.md on disk = %q, want the bytes mallory committed %q", got, page)
			}
			if blob := gitT(t, b.dir, "cat-file", "blob", "HEAD:pages/enc.md"); blob+"\n" != page {
				t.Errorf("pages/enc.md in git = %q", blob)
			}
			for rel, data := range tc.attrs {
				got, err := os.ReadFile(filepath.Join(b.dir, rel))
				if data == "" { // a deletion is taken: without it git writes the bytes as stored
					if err == nil || !strings.Contains(strings.Join(res.Warnings, " "), "the remote deleted "+rel) {
						t.Errorf("the remote's deletion of %s: file %q, warnings %q", rel, got, res.Warnings)
					}
					continue
				}
				if tc.own != "" && rel == ".gitattributes" {
					if string(got) != tc.own {
						t.Errorf("bob's own %s = %q (%v), want %q", rel, got, err, tc.own)
					}
				} else if err == nil {
					t.Errorf("the remote's %s reached the disk: %q", rel, got)
				}
				if !strings.Contains(strings.Join(res.Warnings, " "), rel) || !strings.Contains(strings.Join(res.Warnings, " "), "add it yourself") {
					t.Errorf("no warning names %s: %q", rel, res.Warnings)
				}
			}
			assertClean(t, b)
			// Bob's next write commits the bytes on disk, unchanged.
			b.writePage(t, "enc", "plain text again\n")
			b.commit(t, "edit | enc")
			if blob := gitT(t, b.dir, "cat-file", "blob", "HEAD:pages/enc.md"); !strings.Contains(blob, "plain text again") {
				t.Errorf("pages/enc.md committed as %q", blob)
			}
			assertClean(t, b)
			noMarkers(t, b)
		})
	}
}

// A teammate's .gitattributes is left out by the other's sync, whose
// commit on top deletes it; that deletion is taken, so the two settle
// instead of putting it back and taking it out at every sync.
func TestHostileGitAttributesSettle(t *testing.T) {
	_, a, b := newTeam(t)
	writeT(t, filepath.Join(a.dir, ".gitattributes"), "*.md eol=crlf\n")
	a.commit(t, "attributes")
	a.sync(t, true)
	b.sync(t, true)
	a.sync(t, true)
	b.sync(t, true)
	heads := []string{gitT(t, a.dir, "rev-parse", "HEAD"), gitT(t, b.dir, "rev-parse", "HEAD")}
	for i := 0; i < 2; i++ {
		for _, c := range []*clone{a, b} {
			if res := c.sync(t, true); len(res.Warnings) != 0 || res.Pushed != 0 {
				t.Errorf("sync %d of %s: %+v", i, filepath.Base(c.dir), res)
			}
		}
	}
	if got := []string{gitT(t, a.dir, "rev-parse", "HEAD"), gitT(t, b.dir, "rev-parse", "HEAD")}; !slices.Equal(got, heads) || heads[0] != heads[1] {
		t.Errorf("heads moved %q → %q", heads, got)
	}
	for _, c := range []*clone{a, b} {
		if _, err := os.Stat(filepath.Join(c.dir, ".gitattributes")); err == nil {
			t.Errorf("%s still has the .gitattributes", filepath.Base(c.dir))
		}
	}
}

// onDiskNames fails when two files of the clone's wiki are one file by the
// store's rules (a page's key, or a name folded by case and Unicode form,
// of a file or a folder), and returns every file's path.
func onDiskNames(t *testing.T, c *clone) []string {
	t.Helper()
	var files []string
	keys := map[string]string{}
	claim := func(k, p string) {
		if other, ok := keys[k]; ok && other != p {
			t.Errorf("%s and %s are one file by the store's rules (%s)", other, p, k)
		}
		keys[k] = p
	}
	_ = filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(c.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (d.Name() == ".git" || rel == ".llmwiki") {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		claim("f:"+store.FoldName(rel), rel)
		if !d.IsDir() {
			files = append(files, rel)
			if wiki.LayerOf(rel) == wiki.LayerPages && strings.EqualFold(path.Ext(rel), ".md") {
				claim("p:"+wiki.PageKey(rel), rel)
			}
		}
		return nil
	})
	return files
}

// Remote pages whose names are one page by the store's rule (case,
// separators, Unicode form) beside a page of the wiki, or beside each
// other: nothing is lost, the rule holds on disk, the remote twin is
// renamed, warned about and recorded as a sync conflict.
func TestHostileGitRemoteCaseTwins(t *testing.T) {
	nfc, nfd := "pages/caf\u00e9.md", "pages/cafe\u0301.md"
	for _, tc := range []struct {
		name    string
		have    map[string]string // pages on both sides before mallory's commit
		local   map[string]string // bob's own commit, not pushed (a replay)
		remote  map[string]string // mallory's pages
		renamed map[string]string // remote path → where it must end up
	}{
		{name: "case", have: map[string]string{"pages/raft.md": "bob's raft"}, remote: map[string]string{"pages/Raft.md": "mallory's Raft"},
			renamed: map[string]string{"pages/Raft.md": "pages/Raft-remote.md"}},
		{name: "separators", have: map[string]string{"pages/my-topic.md": "ours"}, remote: map[string]string{"pages/My Topic.md": "theirs"},
			renamed: map[string]string{"pages/My Topic.md": "pages/My Topic-remote.md"}},
		{name: "unicode form", have: map[string]string{nfc: "nfc"}, remote: map[string]string{nfd: "nfd"},
			renamed: map[string]string{nfd: strings.TrimSuffix(nfd, ".md") + "-remote.md"}},
		{name: "two remote twins", remote: map[string]string{"pages/Raft.md": "one", "pages/raft.md": "two", "pages/RAFT.md": "three"},
			renamed: map[string]string{"pages/Raft.md": "pages/Raft-remote.md", "pages/raft.md": "pages/raft-remote-2.md"}},
		{name: "free name taken", have: map[string]string{"pages/raft.md": "ours", "pages/raft-remote.md": "already"}, remote: map[string]string{"pages/Raft.md": "theirs"},
			renamed: map[string]string{"pages/Raft.md": "pages/Raft-remote-2.md"}},
		{name: "replay local twin", local: map[string]string{"pages/Raft.md": "bob's unpushed Raft"}, remote: map[string]string{"pages/raft.md": "mallory's raft"},
			renamed: map[string]string{"pages/raft.md": "pages/raft-remote.md"}},
		{name: "folder twin", have: map[string]string{"pages/Team/a.md": "team a"}, remote: map[string]string{"pages/team/b.md": "team b"},
			renamed: map[string]string{"pages/team/b.md": "pages/Team/b.md"}},
		{name: "source twin", have: map[string]string{"sources/Paper.txt": "ours"}, remote: map[string]string{"sources/paper.TXT": "theirs"},
			renamed: map[string]string{"sources/paper.TXT": "sources/paper-remote.TXT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bare, a, b := newTeam(t)
			page := func(body string) string { return "---\ntitle: t\n---\n" + body + "\n" }
			if len(tc.have) > 0 {
				for rel, body := range tc.have {
					writeT(t, filepath.Join(a.dir, rel), page(body))
				}
				a.commit(t, "have")
				a.sync(t, true)
				b.sync(t, false)
			}
			mallory(t, bare, func(dir string) {
				for rel, body := range tc.remote {
					writeT(t, filepath.Join(dir, rel), page(body))
					gitT(t, dir, "add", rel)
				}
			})
			for rel, body := range tc.local {
				writeT(t, filepath.Join(b.dir, rel), page(body))
				b.commit(t, "local")
			}
			if _, err := b.st.Pages(); err != nil {
				t.Fatal(err)
			}
			res := b.sync(t, false)
			files := onDiskNames(t, b)
			for i, m := range []map[string]string{tc.have, tc.local, tc.remote} {
				for rel, body := range m {
					where := rel
					if to, ok := tc.renamed[rel]; ok && i == 2 {
						where = to
					}
					if got, err := os.ReadFile(filepath.Join(b.dir, where)); err != nil || string(got) != page(body) {
						t.Errorf("%s (%q) is not at %s: %q %v (files %q)", rel, body, where, got, err, files)
					}
				}
			}
			warn := strings.Join(res.Warnings, " ")
			var conflicts []string
			for _, c := range res.Conflicts {
				conflicts = append(conflicts, c.Path)
				if c.Snapshot == "" || c.RemoteSHA256 == "" || c.Summary == "" {
					t.Errorf("conflict %+v lacks a snapshot, a sha or a summary", c)
				}
			}
			for from, to := range tc.renamed {
				if !strings.Contains(warn, from) || !strings.Contains(warn, to) {
					t.Errorf("no warning names %s → %s: %q", from, to, res.Warnings)
				}
				if wiki.LayerOf(to) == wiki.LayerPages && path.Base(from) != path.Base(to) && !slices.Contains(conflicts, to) {
					t.Errorf("no sync conflict for the page %s (conflicts %q)", to, conflicts)
				}
			}
			all, open, err := b.st.SyncConflicts()
			if err != nil || len(all) != len(res.Conflicts) || slices.Contains(open, false) {
				t.Errorf("recorded conflicts %+v open %v err %v, want %d open", all, open, err, len(res.Conflicts))
			}
			pages, err := b.st.Pages()
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for _, p := range pages {
				listed = append(listed, p.Path)
			}
			for _, f := range files {
				if wiki.LayerOf(f) == wiki.LayerPages && !slices.Contains(listed, f) {
					t.Errorf("%s is on disk but not in the catalogue %q", f, listed)
				}
			}
			assertClean(t, b)
			noMarkers(t, b)
			// The next sync has nothing more to rename.
			if res2 := b.sync(t, true); len(res2.Warnings) != 0 || len(res2.Conflicts) != 0 {
				t.Errorf("second sync: %+v", res2)
			}
			// Ada, who never saw the twins, ends with the same files.
			a.sync(t, false)
			if got, want := onDiskNames(t, a), files; !slices.Equal(got, want) {
				t.Errorf("ada's files %q, bob's %q", got, want)
			}
		})
	}
}

// A remote that rewrites a source the shared history had, or deletes one:
// the name keeps the bytes everyone cited, the remote's bytes are saved
// under a free name, a deleted source is put back; each is a warning.
func TestHostileGitRemoteRewritesSource(t *testing.T) {
	for _, tc := range []struct {
		name string
		ff   bool
	}{{"fast-forward", true}, {"replay", false}} {
		t.Run(tc.name, func(t *testing.T) {
			bare, a, b := newTeam(t)
			writeT(t, filepath.Join(a.dir, "sources", "paper.txt"), "the paper everyone cited\n")
			writeT(t, filepath.Join(a.dir, "sources", "other.txt"), "another source\n")
			a.commit(t, "sources")
			a.sync(t, true)
			b.sync(t, false)
			mallory(t, bare, func(dir string) {
				writeT(t, filepath.Join(dir, "sources", "paper.txt"), "mallory's rewrite\n")
				gitT(t, dir, "add", "sources/paper.txt")
				gitT(t, dir, "rm", "-q", "sources/other.txt")
			})
			if !tc.ff {
				b.writePage(t, "bobs", "Bob's page.\n")
				b.commit(t, "edit | bobs")
			}
			res := b.sync(t, true)
			want := map[string]string{
				"sources/paper.txt":        "the paper everyone cited\n",
				"sources/paper-remote.txt": "mallory's rewrite\n",
				"sources/other.txt":        "another source\n",
			}
			for rel, data := range want {
				if got := b.read(t, rel); got != data {
					t.Errorf("%s = %q, want %q", rel, got, data)
				}
				if got := gitT(t, b.dir, "cat-file", "blob", "HEAD:"+rel); got+"\n" != data {
					t.Errorf("%s in git = %q, want %q", rel, got, data)
				}
			}
			warn := strings.Join(res.Warnings, " ")
			for _, w := range []string{"sources/paper.txt", "sources/paper-remote.txt", "sources/other.txt"} {
				if !strings.Contains(warn, w) {
					t.Errorf("no warning names %s: %q", w, res.Warnings)
				}
			}
			assertClean(t, b)
			if res2 := b.sync(t, true); len(res2.Warnings) != 0 {
				t.Errorf("second sync warns again: %q", res2.Warnings)
			}
			a.sync(t, false)
			for rel, data := range want {
				if got := a.read(t, rel); got != data {
					t.Errorf("ada's %s = %q, want %q", rel, got, data)
				}
			}
			noMarkers(t, b)
		})
	}
}

// Ada and Bob both screen the same hostile commit before either pushes:
// their put-back commits agree, so the second sync replays without a
// conflict or a duplicate.
func TestHostileGitScreensConverge(t *testing.T) {
	bare, a, b := newTeam(t)
	writeT(t, filepath.Join(a.dir, "sources", "paper.txt"), "cited\n")
	writeT(t, filepath.Join(a.dir, "pages", "raft.md"), "---\ntitle: raft\n---\nraft\n")
	a.commit(t, "have")
	a.sync(t, true)
	b.sync(t, false)
	mallory(t, bare, func(dir string) {
		writeT(t, filepath.Join(dir, "sources", "paper.txt"), "rewritten\n")
		writeT(t, filepath.Join(dir, "pages", "Raft.md"), "---\ntitle: Raft\n---\nRaft\n")
		writeT(t, filepath.Join(dir, ".gitattributes"), "* ident\n")
		gitT(t, dir, "add", "-A")
	})
	a.sync(t, false)
	b.sync(t, true)
	res := a.sync(t, true)
	if len(res.Conflicts) != 0 || len(res.Renamed) != 0 {
		t.Errorf("ada's second sync: %+v", res)
	}
	if got, want := onDiskNames(t, a), onDiskNames(t, b); !slices.Equal(got, want) {
		t.Errorf("ada's files %q, bob's %q", got, want)
	}
	for _, rel := range []string{"sources/paper.txt", "sources/paper-remote.txt", "pages/Raft-remote.md"} {
		if a.read(t, rel) != b.read(t, rel) {
			t.Errorf("%s differs between ada and bob", rel)
		}
	}
	noMarkers(t, a)
	noMarkers(t, b)
}
