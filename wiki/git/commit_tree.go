package git

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/internal/gitcli"
)

// A commit's tree is built from HEAD's without any index: only the trees
// on the paths from the root to the changed files are read (one cat-file)
// and written again (one mktree a folder), so the cost follows the depth
// of the changed files and the size of their folders, not the size of the
// repository's index.

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode, kind, oid string
}

// fileChange is a file's new version in a commit: mode and blob, or
// removed.
type fileChange struct {
	mode, oid string
	removed   bool
}

// buildTree returns the tree of base (a commit; "" for none) with changes
// (paths from the repository's top) applied, and base's own tree.
func buildTree(ctx context.Context, g *gitcli.Git, base string, changes map[string]fileChange) (tree, baseTree string, err error) {
	// Every folder on a changed path, the root ("") included.
	dirs := map[string]bool{"": true}
	for p := range changes {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	// Deepest first, so a folder's tree is written before its parent's.
	slices.SortFunc(order, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
	trees, baseTree, err := readTrees(ctx, g, base, order)
	if err != nil {
		return "", "", err
	}
	for p, c := range changes {
		d, name := path.Split(p)
		d = strings.TrimSuffix(d, "/")
		if c.removed {
			delete(trees[d], name)
		} else {
			trees[d][name] = treeEntry{mode: c.mode, kind: "blob", oid: c.oid}
		}
	}
	var root string
	for _, d := range order {
		entries := trees[d]
		if d != "" && len(entries) == 0 {
			// A folder left empty is no tree of its parent.
			parent, name := parentOf(d)
			delete(trees[parent], name)
			continue
		}
		oid, err := mktree(ctx, g, entries)
		if err != nil {
			return "", "", err
		}
		if d == "" {
			root = oid
			continue
		}
		parent, name := parentOf(d)
		trees[parent][name] = treeEntry{mode: "040000", kind: "tree", oid: oid}
	}
	return root, baseTree, nil
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

func parentOf(d string) (parent, name string) {
	parent, name = path.Split(d)
	return strings.TrimSuffix(parent, "/"), name
}

// readTrees reads the trees of dirs under base in one cat-file, and the id
// of base's root tree; a folder base lacks (or a file in its place, which
// the commit replaces) is empty.
func readTrees(ctx context.Context, g *gitcli.Git, base string, dirs []string) (_ map[string]map[string]treeEntry, root string, _ error) {
	trees := make(map[string]map[string]treeEntry, len(dirs))
	for _, d := range dirs {
		trees[d] = map[string]treeEntry{}
	}
	if base == "" {
		return trees, "", nil
	}
	var in bytes.Buffer
	for _, d := range dirs {
		if strings.ContainsAny(d, "\n\r") {
			return nil, "", fmt.Errorf("git: a folder name holds a line break")
		}
		in.WriteString(base + ":" + d + "\n")
	}
	out, err := g.RunWith(ctx, in.Bytes(), nil, "cat-file", "--batch")
	if err != nil {
		return nil, "", err
	}
	for _, d := range dirs {
		hdr, rest, ok := bytes.Cut(out, []byte("\n"))
		if !ok {
			return nil, "", fmt.Errorf("git cat-file: output ends early")
		}
		f := strings.Fields(string(hdr))
		if len(f) == 2 && f[1] == "missing" {
			out = rest
			continue
		}
		if len(f) != 3 {
			return nil, "", fmt.Errorf("git cat-file: unexpected header %q", hdr)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size+1 > len(rest) {
			return nil, "", fmt.Errorf("git cat-file: bad size in %q", hdr)
		}
		body := rest[:size]
		out = rest[size+1:]
		if d == "" {
			root = f[0]
		}
		if f[1] != "tree" {
			continue // a file where the folder goes: the commit replaces it
		}
		entries, err := parseTree(body, len(f[0])/2)
		if err != nil {
			return nil, "", err
		}
		trees[d] = entries
	}
	return trees, root, nil
}

// parseTree reads a raw tree object whose ids are idLen bytes.
func parseTree(body []byte, idLen int) (map[string]treeEntry, error) {
	entries := map[string]treeEntry{}
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("git: a tree entry has no mode")
		}
		mode := string(body[:sp])
		body = body[sp+1:]
		nul := bytes.IndexByte(body, 0)
		if nul <= 0 || len(body) < nul+1+idLen {
			return nil, fmt.Errorf("git: a tree entry is cut short")
		}
		name := string(body[:nul])
		oid := hex.EncodeToString(body[nul+1 : nul+1+idLen])
		body = body[nul+1+idLen:]
		kind := "blob"
		switch mode {
		case "40000", "040000":
			mode, kind = "040000", "tree"
		case "160000":
			kind = "commit"
		}
		if len(mode) < 6 {
			mode = strings.Repeat("0", 6-len(mode)) + mode
		}
		entries[name] = treeEntry{mode: mode, kind: kind, oid: oid}
	}
	return entries, nil
}

// mktree writes a tree of entries and returns its id.
func mktree(ctx context.Context, g *gitcli.Git, entries map[string]treeEntry) (string, error) {
	var in bytes.Buffer
	for name, e := range entries {
		in.WriteString(e.mode + " " + e.kind + " " + e.oid + "\t" + name)
		in.WriteByte(0)
	}
	out, err := g.RunWith(ctx, in.Bytes(), nil, "mktree", "-z")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
