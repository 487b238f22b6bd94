//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestReadOnlyWiki: a server on a real tmpfs remounted read-only (file
// modes prove nothing under root) answers search_wiki with the wiki's pages,
// says in load_project where its index is (the wiki's own, used read-only;
// or, when the wiki has none, one built in the user's cache folder), and
// refuses every write tool with "the wiki is read-only; nothing was
// changed"; `llmwiki search` finds the pages too, and no byte of the wiki
// changes.
func TestReadOnlyWiki(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noIndex bool
		where   string
	}{
		{"index in the wiki", false, "its search index is used read-only"},
		{"no index", true, "kept in the user's cache folder (llmwiki/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := mountTmpfs(t, "16m")
			binary(t) // built before XDG_CACHE_HOME moves (go build keeps its cache there)
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			root := filepath.Join(mnt, "wiki")
			initWiki(t, root)
			c, err := startRPC(t, root)
			if err != nil {
				t.Fatal(err)
			}
			for _, title := range []string{"Banana", "Cherry"} {
				if r, err := c.tool("write_page", map[string]any{"title": title, "content": "The " + strings.ToLower(title) + " is a fruit.\n"}); err != nil || r.IsError {
					t.Fatalf("write_page %s: %v %s", title, err, r.Text)
				}
			}
			if r, err := c.tool("search_wiki", map[string]any{"query": "fruit"}); err != nil || r.IsError {
				t.Fatalf("search before the remount: %v %s", err, r.Text)
			}
			c.close()
			if tc.noIndex {
				os.RemoveAll(filepath.Join(root, ".llmwiki", "search"))
			}
			wikitest.Remount(t, mnt, true)
			t.Cleanup(func() { wikitest.Remount(t, mnt, false) })
			before := wikitest.TreeHashes(t, root, nil)

			c, err = startRPC(t, root)
			if err != nil {
				t.Fatalf("serve on a read-only wiki: %v", err)
			}
			defer c.close()
			lp, err := c.tool("load_project", map[string]any{})
			if err != nil || lp.IsError {
				t.Fatalf("load_project: %v %s", err, lp.Text)
			}
			if ws, _ := lp.Data["warnings"].([]any); len(ws) == 0 || !strings.Contains(fmt.Sprint(ws), "the wiki is read-only") {
				t.Errorf("load_project's warnings on a read-only wiki: %v", lp.Data["warnings"])
			}
			r, err := c.tool("search_wiki", map[string]any{"query": "fruit"})
			if err != nil || r.IsError {
				t.Fatalf("search_wiki on a read-only wiki: %v %s", err, r.Text)
			}
			for _, p := range []string{"pages/banana.md", "pages/cherry.md"} {
				if !strings.Contains(r.Text, `"path":"`+p+`"`) {
					t.Errorf("search_wiki fruit lacks %s: %s", p, r.Text)
				}
			}
			idx, _ := r.Data["index"].(map[string]any)
			if reason, _ := idx["reason"].(string); idx["state"] != "ready" || !strings.Contains(reason, tc.where) || strings.Contains(reason, cache) {
				t.Errorf("search_wiki's index: %v, want ready and %q", idx, tc.where)
			}
			// load_project after the search, once the index is open.
			lp, _ = c.tool("load_project", map[string]any{})
			if lidx, _ := lp.Data["index"].(map[string]any); !strings.Contains(lidx["reason"].(string), tc.where) {
				t.Errorf("load_project's index: %v, want %q", lidx, tc.where)
			}
			if rp, err := c.tool("read_page", map[string]any{"page": "banana"}); err != nil || rp.IsError {
				t.Errorf("read_page on a read-only wiki: %v %s", err, rp.Text)
			}
			list, err := c.request("tools/list", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			res, _ := list["result"].(map[string]any)
			tools, _ := res["tools"].([]any)
			writes := 0
			for _, tl := range tools {
				tool := tl.(map[string]any)
				ann, _ := tool["annotations"].(map[string]any)
				if ann["readOnlyHint"] == true {
					continue
				}
				writes++
				name := tool["name"].(string)
				r, err := c.tool(name, map[string]any{"title": "Date", "content": "x", "path": "sources/x.md"})
				if err != nil {
					t.Fatal(err)
				}
				if want := "unavailable: " + store.ReadOnlyMessage; !r.IsError || r.Text != want {
					t.Errorf("%s on a read-only wiki: %q, want %q", name, r.Text, want)
				}
			}
			if writes < 10 {
				t.Errorf("only %d write tools listed", writes)
			}
			c.close()
			out, err := exec.Command(binary(t), "search", "--root", root, "fruit").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "pages/banana.md") || !strings.Contains(string(out), "pages/cherry.md") || !strings.Contains(string(out), tc.where) {
				t.Errorf("llmwiki search on a read-only wiki: %v\n%s", err, out)
			}
			if diff := wikitest.DiffHashes(before, wikitest.TreeHashes(t, root, nil)); len(diff) > 0 {
				t.Errorf("the read-only wiki changed: %v", diff)
			}
			inCache, _ := filepath.Glob(filepath.Join(cache, "llmwiki", "*", ".llmwiki", "search", "*", "index_meta.json"))
			if tc.noIndex != (len(inCache) == 1) {
				t.Errorf("indexes in the cache folder: %v", inCache)
			}
		})
	}
}
