package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A stated promise is one the tests prove by passing rather than by a
// figure they measure: the README lists it with the tests that prove it,
// and [checkStated] fails when a named test no longer exists, so the list
// cannot name a test that was renamed or removed.
type stated struct {
	title string   // bold lead, ending in a full stop
	text  string   // one or two sentences
	tests []string // "package.TestName", as go test -run finds it
}

// statedPromises are rendered in this order after the measured ones.
var statedPromises = []stated{}

// renderStated writes one bullet per stated promise.
func renderStated(b *bytes.Buffer) {
	for _, p := range statedPromises {
		names := make([]string, len(p.tests))
		for i, t := range p.tests {
			names[i] = "`" + t + "`"
		}
		fmt.Fprintf(b, "- **%s** %s Proved by %s.\n", p.title, p.text, strings.Join(names, ", "))
	}
}

// testFuncs lists "package.TestName" for every test function in the
// repository under root.
func testFuncs(root string) (map[string]bool, error) {
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		for _, m := range re.FindAllSubmatch(data, -1) {
			out[pkg+"."+string(m[1])] = true
		}
		return nil
	})
	return out, err
}

// checkStated reports every test a stated promise names that the code
// under root does not define.
func checkStated(root string) error {
	have, err := testFuncs(root)
	if err != nil {
		return err
	}
	var missing []string
	for _, p := range statedPromises {
		for _, t := range p.tests {
			if !have[t] {
				missing = append(missing, t)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("the promises name tests that do not exist: %s", strings.Join(missing, ", "))
	}
	return nil
}
