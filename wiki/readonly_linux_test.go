//go:build linux

package wiki_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestReadOnlyOpenWritesNothing: a wiki on a real tmpfs remounted
// read-only opens read-only, also without .llmwiki/ at all, and writes
// nothing: a crashed writer's temp file is not swept, an interrupted write
// in the journal is left as it is and reported, and reads and
// load_project work. Every write is refused with the read-only message.
func TestReadOnlyOpenWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		noState   bool // .llmwiki removed before the remount
		temp      string
		journaled bool
	}{
		{"with state", false, "pages/.topic.md.llmwiki-tmp-0123456789abcdef", true},
		{"without .llmwiki", true, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := wikitest.MountTmpfs(t, "4m", "nothing else covers a read-only wiki")
			dir := filepath.Join(mnt, "wiki")
			if _, err := wiki.Init(dir); err != nil {
				t.Fatal(err)
			}
			st, err := wiki.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Topic", Content: "First.\n"}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			if tc.temp != "" {
				os.WriteFile(filepath.Join(dir, tc.temp), []byte("half"), 0o644)
			}
			if tc.journaled {
				os.WriteFile(filepath.Join(dir, filepath.FromSlash(store.JournalFile)), []byte(`{"entries":[{"path":"pages/topic.md","op":"replace","temp":"`+tc.temp+`","sha256":"x"}]}`), 0o644)
			}
			if tc.noState {
				os.RemoveAll(filepath.Join(dir, ".llmwiki"))
			}
			wikitest.Remount(t, mnt, true)
			t.Cleanup(func() { wikitest.Remount(t, mnt, false) })
			before := wikitest.TreeHashes(t, dir, nil)

			st, err = wiki.Open(dir)
			if err != nil {
				t.Fatalf("open a read-only wiki: %v", err)
			}
			if !st.ReadOnly() {
				t.Fatal("not read-only")
			}
			if got := strings.Join(st.Repairs(), "\n"); tc.journaled != strings.Contains(got, "completed when the wiki is next opened writable") {
				t.Errorf("repairs: %q", got)
			}
			if p, err := st.LoadProject(ctx); err != nil || p.Counts.Pages != 1 {
				t.Errorf("load project: %+v %v", p.Counts, err)
			}
			if _, err := st.ResolvePage("topic"); err != nil {
				t.Errorf("resolve a page: %v", err)
			}
			_, err = st.WritePage(ctx, wiki.PageInput{Title: "Other", Content: "x\n"})
			if store.CodeOf(err) != store.CodeUnavailable || store.PublicMessage(err) != store.ReadOnlyMessage {
				t.Errorf("write on a read-only wiki: %v", err)
			}
			if _, err := st.PruneSnapshots(ctx, true); err != nil {
				t.Errorf("a dry-run prune on a read-only wiki: %v", err)
			}
			if err := st.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if diff := wikitest.DiffHashes(before, wikitest.TreeHashes(t, dir, nil)); len(diff) > 0 {
				t.Errorf("the read-only wiki changed: %v", diff)
			}
		})
	}
}
