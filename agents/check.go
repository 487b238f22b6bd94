package agents

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CheckFiles compares generated files (repository-relative paths) with the
// copies under root. With write, it rewrites the ones that differ and
// removes files in the owned folders
// that nothing generates any more; without, it returns an error listing
// every difference and the command that fixes it. Only the owned folders
// (repository-relative) are searched for stale files.
func CheckFiles(root string, files map[string][]byte, write bool, owned ...string) error {
	var diffs []string
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		have, err := os.ReadFile(full)
		if err == nil && bytes.Equal(have, files[p]) {
			continue
		}
		if write {
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, files[p], 0o644); err != nil {
				return err
			}
			continue
		}
		diffs = append(diffs, p)
	}
	// Files in the generated folders that nothing generates.
	for _, g := range owned {
		staleFiles(root, filepath.Join(root, filepath.FromSlash(g)), files, write, &diffs)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("generated files are out of date: %s\nrun: go generate ./... and commit them", strings.Join(diffs, ", "))
	}
	return nil
}

func staleFiles(root, dir string, files map[string][]byte, write bool, diffs *[]string) {
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if _, ok := files[rel]; ok {
			return nil
		}
		if write {
			return os.Remove(path)
		}
		*diffs = append(*diffs, rel+" (not generated any more)")
		return nil
	})
}
