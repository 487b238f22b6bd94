package install

import (
	"os"
	"path/filepath"
	"time"

	"github.com/llmwiki/llmwiki/tools"
)

// GoldenDir is where the repository keeps, per client and scope, every file
// a fresh install writes (home/... and project/...), for review and tests.
const GoldenDir = "testdata/install/golden"

// Fixed values of the golden installs.
const (
	GoldenRoot    = "/home/you/llmwiki"
	GoldenCommand = "/usr/local/bin/llmwiki"
)

// GoldenFiles installs every client in both scopes into empty temporary
// folders (Linux paths, fixed root and command) and returns the files
// written, keyed by repository-relative golden path. TestGolden compares
// them with the committed copies; go generate ./... refreshes them with the
// other files generated from the tool registry.
func GoldenFiles(list []tools.Tool) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, client := range Clients() {
		for _, scope := range []string{ScopeProject, ScopeUser} {
			dir, err := os.MkdirTemp("", "llmwiki-golden-")
			if err != nil {
				return nil, err
			}
			home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
			os.MkdirAll(home, 0o755)
			os.MkdirAll(project, 0o755)
			_, err = Install(Options{
				Client: client, Scope: scope, Project: project, Home: home, GOOS: "linux",
				Env: func(string) string { return "" }, Root: GoldenRoot, Command: GoldenCommand, Tools: list,
				Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
			})
			if err == nil {
				err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					data, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					rel, _ := filepath.Rel(dir, p)
					out[GoldenDir+"/"+client+"-"+scope+"/"+filepath.ToSlash(rel)] = data
					return nil
				})
			}
			os.RemoveAll(dir)
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
