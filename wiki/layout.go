package wiki

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llmwiki/llmwiki/wiki/store"
)

//go:embed templates/*.md
var templates embed.FS

// LayoutDirs are the folders of a project, created by [Init].
var LayoutDirs = []string{
	"sources", "sources/research", "pages",
	".llmwiki", store.AuditDir, store.SnapshotDir, ".llmwiki/plans", ".llmwiki/lint", ".llmwiki/search",
}

// LayoutFiles are the top-level files of a project, created by [Init] from
// the templates in wiki/templates/.
var LayoutFiles = []string{"schema.md", "context.md", "index.md", "guidelines.md", "log.md"}

// stateIgnore keeps lock and derived search index out of git by default.
const stateIgnore = "# llmwiki server state: audit/ and snapshots/ are history worth keeping;\n# search/ is derived and rebuilt when missing.\nsearch/\nlock\nstate.lock\n"

// Init creates the project layout at dir: the folders of [LayoutDirs], the
// starting files of [LayoutFiles], .llmwiki/.gitignore and an empty
// [SourcesRecordFile]. It is idempotent and never overwrites a
// file: an existing file is left exactly as it is. It returns the
// project-relative paths it created, in order.
func Init(dir string) ([]string, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, store.Errorf(store.CodeInvalid, "%s is a file, not a folder", filepath.Base(dir))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, store.Internal("create project folder", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, store.Internal("open project folder", err)
	}
	defer root.Close()
	var created []string
	for _, d := range LayoutDirs {
		if _, err := root.Stat(d); err == nil {
			continue
		}
		if err := root.MkdirAll(d, 0o755); err != nil {
			return created, store.Internal("create "+d, err)
		}
		created = append(created, d+"/")
	}
	files := append([]string(nil), LayoutFiles...)
	for _, name := range files {
		data, err := templates.ReadFile("templates/" + name)
		if err != nil {
			return created, store.Internal("read template", err)
		}
		ok, err := createIfMissing(root, name, data)
		if err != nil {
			return created, err
		}
		if ok {
			created = append(created, name)
		}
	}
	if ok, err := createIfMissing(root, ".llmwiki/.gitignore", []byte(stateIgnore)); err != nil {
		return created, err
	} else if ok {
		created = append(created, ".llmwiki/.gitignore")
	}
	// An empty sources record: a new wiki has no source whose change could
	// have gone unseen, so the first write records its sources without a
	// rebuild (and its "was missing" message).
	if ok, err := createIfMissing(root, SourcesRecordFile, nil); err != nil {
		return created, err
	} else if ok {
		created = append(created, SourcesRecordFile)
	}
	return created, nil
}

// createIfMissing creates name with data unless it exists (O_EXCL), writing
// through a temp file so a crash never leaves a half-written starting file.
func createIfMissing(root *os.Root, name string, data []byte) (bool, error) {
	if _, err := root.Lstat(name); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, store.Internal("inspect "+name, err)
	}
	tmp := name + store.TempMarker + "init"
	if err := root.WriteFile(tmp, data, 0o644); err != nil {
		return false, store.Internal("create "+name, err)
	}
	// Link fails when name appeared meanwhile, so a file is never replaced.
	if err := root.Link(tmp, name); err != nil {
		_ = root.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, store.Internal("create "+name, err)
	}
	_ = root.Remove(tmp)
	return true, nil
}

// Template returns the starting content of one of [LayoutFiles].
func Template(name string) ([]byte, error) {
	return templates.ReadFile("templates/" + name)
}
