package lint

import (
	"cmp"
	"math"
	"os"
	"path"
	"slices"
	"sync"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// maxOpenFolders is how many folders [folders] keeps open between batches
// of reads (two descriptors each).
const maxOpenFolders = 256

// folders reads files of the wiki through their folders, each opened once
// ([store.Dir], as the link graph's walk reads), so that a read is one
// openat in its folder rather than a walk of the path from the wiki's root
// (os.Root opens each component). Like [store.Store.ReadFile] it reads
// regular files only. ReadFile is safe for concurrent use; trim and close
// are not, and run between batches of reads.
type folders struct {
	root *os.Root
	mu   sync.Mutex
	m    map[string]*folder
	tick int // the batch, to close the folders used least recently
}

type folder struct {
	r    *os.Root // the folder's root, closed with it (nil for the wiki's root)
	d    *store.Dir
	err  error
	used int
}

func newFolders(root *os.Root) *folders {
	return &folders{root: root, m: map[string]*folder{}}
}

// ReadFile returns the bytes of the regular file rel.
func (f *folders) ReadFile(rel string) ([]byte, error) {
	dir, name := path.Dir(rel), path.Base(rel)
	f.mu.Lock()
	fo := f.m[dir]
	if fo == nil {
		fo = &folder{}
		if dir == "." {
			fo.d, fo.err = store.OpenDir(f.root)
		} else if fo.r, fo.err = store.OpenRootDir(f.root, dir); fo.err == nil {
			if fo.d, fo.err = store.OpenDir(fo.r); fo.err != nil {
				fo.r.Close()
				fo.r = nil
			}
		}
		f.m[dir] = fo
	}
	fo.used = f.tick
	f.mu.Unlock()
	if fo.err != nil {
		return nil, fo.err
	}
	data, _, err := fo.d.ReadFile(name, math.MaxInt64)
	return data, err
}

// trim ends a batch of reads: above maxOpenFolders, it closes the folders
// used least recently down to half that.
func (f *folders) trim() {
	f.tick++
	if len(f.m) <= maxOpenFolders {
		return
	}
	dirs := make([]string, 0, len(f.m))
	for d := range f.m {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b string) int { return cmp.Compare(f.m[a].used, f.m[b].used) })
	for _, d := range dirs[:len(dirs)-maxOpenFolders/2] {
		f.m[d].close()
		delete(f.m, d)
	}
}

// close closes every folder held open.
func (f *folders) close() {
	for d, fo := range f.m {
		fo.close()
		delete(f.m, d)
	}
}

func (fo *folder) close() {
	if fo.d != nil {
		fo.d.Close()
	}
	if fo.r != nil {
		fo.r.Close()
	}
}
