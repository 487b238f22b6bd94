package wiki

import (
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// inExistingFoldersScan is inExistingFolders as it was before the folder
// index: every folder of the catalogue keyed per create, the deepest match
// taken, of equal depths the first met in path order.
func inExistingFoldersScan(dirs []string, rel string) string {
	dir := path.Dir(rel)
	if dir == "pages" {
		return rel
	}
	sort.Strings(dirs)
	want := folderKey(dir)
	best, depth := "", 0
	seen := map[string]bool{}
	for _, d := range dirs {
		for d != "pages" && d != "." && strings.Count(d, "/") > depth && !seen[d] {
			seen[d] = true
			if k := folderKey(d); k == want || strings.HasPrefix(want, k+"/") {
				best, depth = d, strings.Count(d, "/")
				break
			}
			d = path.Dir(d)
		}
	}
	if best == "" {
		return rel
	}
	return best + strings.TrimPrefix(rel, path.Join(strings.Split(rel, "/")[:strings.Count(best, "/")+1]...))
}

// The folder index puts a new page in the folder the scan of every folder
// did, on random trees of folder names that differ by case and separators
// only, and follows folders that come and go.
func TestInExistingFoldersSameAsScan(t *testing.T) {
	segs := []string{"A", "a", "a b", "a-b", "A_B", "a ", "b", "B", "c"}
	rng := rand.New(rand.NewSource(20))
	randDir := func() string {
		parts := []string{"pages"}
		for n := 1 + rng.Intn(3); n > 0; n-- {
			parts = append(parts, segs[rng.Intn(len(segs))])
		}
		return strings.Join(parts, "/")
	}
	for round := range 30 {
		s, dir := newStore(t)
		files := map[string]bool{}
		for range 1 + rng.Intn(12) {
			p := randDir() + "/p.md"
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte("# P\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files[p] = true
		}
		for step := range 20 {
			if step%5 == 4 { // a folder goes or comes between the lookups
				for p := range files {
					if err := os.Remove(filepath.Join(dir, p)); err != nil {
						t.Fatal(err)
					}
					delete(files, p)
					break
				}
				p := randDir() + "/q.md"
				os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
				os.WriteFile(filepath.Join(dir, p), []byte("# Q\n"), 0o644)
				files[p] = true
				if _, err := s.PagesFresh(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			if step%5 == 2 { // a write through the store, maybe into a new folder
				slug := strings.TrimPrefix(randDir(), "pages/") + "/w" + strconv.Itoa(step)
				// Refused when a folder would clash with a page's name.
				if w, err := s.WritePage(t.Context(), PageInput{Title: "W", Slug: slug, Content: "w\n"}); err == nil {
					files[w.Path] = true
				}
			}
			pages, err := s.Pages()
			if err != nil {
				t.Fatal(err)
			}
			var dirs []string
			have := map[string]bool{}
			for _, p := range pages {
				if d := path.Dir(p.Path); !have[d] {
					have[d] = true
					dirs = append(dirs, d)
				}
			}
			rel := randDir() + "/new.md"
			if got, want := s.inExistingFolders(rel), inExistingFoldersScan(dirs, rel); got != want {
				t.Fatalf("round %d step %d: folders %q: %s goes to %s, want %s", round, step, dirs, rel, got, want)
			}
		}
	}
}
