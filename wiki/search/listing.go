package search

import (
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// A walk of the files, as the start of a server and a full reconciliation
// see them. The start of a large wiki is mostly this walk: listing every
// folder (the file watcher's walk, which lists them for the index too) and
// one stat per file. So:
//
//   - a folder's files are stated by a pool of GOMAXPROCS goroutines, each
//     on its own duplicate of the folder's descriptor ([store.Dir.Dup]),
//     while the walk goes on listing and watching the next folders;
//   - the walk keeps each folder's names and stats as the folder listed
//     them, never a map of every path: the reconciliation looks each file up
//     in the manifest by a path built in one reused buffer, and counts the
//     manifest's files it met, so files gone since the last run are looked
//     for only when some are.

// listStatChunk is the most names one stat task of the pool takes: a large
// folder (tldr's common/ holds 4,600 pages) is shared between the pool's
// goroutines.
const listStatChunk = 256

// listing is a walk's indexable files, folder by folder.
type listing struct {
	dirs []*dirFiles
	// unserved are the files left out for a name llmwiki will not serve
	// ([wiki.UnservableName]), sorted.
	unserved []string
	// special is the files the index would hold but that are not regular
	// files (FIFOs, sockets, devices): never opened, counted as skipped.
	special []string
}

// dirFiles is the indexable files of one folder.
type dirFiles struct {
	rel   string     // the folder, project-relative; "" for the project root
	names []string   // file names in the folder
	stats []fileStat // stats[i] is names[i]'s; size -1 when it is no longer a regular file
}

// path returns the project-relative path of names[i], built in buf (the
// result is valid until buf is used again; string(...) of it makes a copy).
func (d *dirFiles) path(buf []byte, i int) []byte {
	buf = buf[:0]
	if d.rel != "" {
		buf = append(append(buf, d.rel...), '/')
	}
	return append(buf, d.names[i]...)
}

// count is the number of regular files listed.
func (l *listing) count() int {
	n := 0
	for _, d := range l.dirs {
		for _, st := range d.stats {
			if st.size >= 0 {
				n++
			}
		}
	}
	return n
}

// paths returns every listed regular file's path (for tests and the rare
// reconciliation that finds files gone).
func (l *listing) paths() map[string]fileStat {
	out := make(map[string]fileStat, l.count())
	var buf []byte
	for _, d := range l.dirs {
		for i, st := range d.stats {
			if st.size >= 0 {
				buf = d.path(buf, i)
				out[string(buf)] = st
			}
		}
	}
	return out
}

// lister builds a listing: the walk adds folders (add), a pool of
// goroutines states their files meanwhile, and finish waits for the pool.
type lister struct {
	tasks    chan statTask
	wg       sync.WaitGroup
	dirs     []*dirFiles
	unserved []string
	special  []string
}

// statTask is the stats of names[lo:hi] of one folder, through its own
// handle on the folder, closed by the task that states its last chunk.
type statTask struct {
	dir    *sharedDir
	files  *dirFiles
	lo, hi int
}

// sharedDir is a folder handle shared by the chunks of one folder.
type sharedDir struct {
	d    *store.Dir
	mu   sync.Mutex
	left int
}

func (s *sharedDir) done() {
	s.mu.Lock()
	s.left--
	last := s.left == 0
	s.mu.Unlock()
	if last {
		s.d.Close()
	}
}

// newNameLister returns a lister that only lists: every file the folders
// list as regular is kept with a zero stat, for a scan that reads each file
// anyway and checks it then (the first pass, early.go).
func newNameLister() *lister { return &lister{} }

func newLister() *lister {
	l := &lister{tasks: make(chan statTask, 64)}
	for range runtime.GOMAXPROCS(0) {
		l.wg.Go(func() {
			for t := range l.tasks {
				for i := t.lo; i < t.hi; i++ {
					st, err := t.dir.d.Lstat(t.files.names[i])
					if err == nil && st.Mode.IsRegular() {
						t.files.stats[i] = fileStat{size: st.Size, mtime: st.ModTime.UnixNano()}
					} else {
						t.files.stats[i] = fileStat{size: -1}
					}
				}
				t.dir.done()
			}
		})
	}
	return l
}

// add lists the indexable files among the entries ents of the folder d (at
// rel, under pages/ or sources/) and queues their stats. d may be closed
// once add returns. A folder whose handle cannot be duplicated is stated
// at once.
func (l *lister) add(d *store.Dir, rel string, ents []store.DirEntry) {
	pages := wiki.LayerOf(rel) == wiki.LayerPages
	dirOK := wiki.UnservableName(rel+"/x") == ""
	var names []string
	for _, e := range ents {
		if store.IsSpecial(e.Type) && indexableIn(pages, e.Name) {
			l.special = append(l.special, rel+"/"+e.Name)
			continue
		}
		if !e.Type.IsRegular() {
			continue
		}
		if !indexableIn(pages, e.Name) {
			// A hidden markdown file ("..md") is counted; other hidden
			// files (.DS_Store) and temp files are not content.
			if strings.HasPrefix(e.Name, ".") && strings.EqualFold(path.Ext(e.Name), ".md") && wiki.UnservableName(rel+"/"+e.Name) != "" {
				l.unserved = append(l.unserved, rel+"/"+e.Name)
			}
			continue
		}
		// A plain name in a folder the tools can name needs no full check
		// (a walk of 44k files would spend more on it than on its stats).
		if !dirOK || !wiki.PlainName(e.Name) || len(rel)+1+len(e.Name) > wiki.MaxPathLen {
			if wiki.UnservableName(rel+"/"+e.Name) != "" {
				l.unserved = append(l.unserved, rel+"/"+e.Name)
				continue
			}
		}
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return
	}
	f := &dirFiles{rel: rel, names: names, stats: make([]fileStat, len(names))}
	l.dirs = append(l.dirs, f)
	if l.tasks == nil {
		return // a name lister
	}
	dup, err := d.Dup()
	if err != nil {
		for i, name := range names {
			f.stats[i] = fileStat{size: -1}
			if st, err := d.Lstat(name); err == nil && st.Mode.IsRegular() {
				f.stats[i] = fileStat{size: st.Size, mtime: st.ModTime.UnixNano()}
			}
		}
		return
	}
	sd := &sharedDir{d: dup, left: (len(names) + listStatChunk - 1) / listStatChunk}
	for lo := 0; lo < len(names); lo += listStatChunk {
		l.tasks <- statTask{dir: sd, files: f, lo: lo, hi: min(lo+listStatChunk, len(names))}
	}
}

// addStat adds one file stated by the caller (context.md at the root).
func (l *lister) addStat(rel, name string, st fileStat) {
	l.dirs = append(l.dirs, &dirFiles{rel: rel, names: []string{name}, stats: []fileStat{st}})
}

// finish waits for the stats and returns the listing.
func (l *lister) finish() *listing {
	if l.tasks != nil {
		close(l.tasks)
	}
	l.wg.Wait()
	sort.Strings(l.unserved)
	sort.Strings(l.special)
	return &listing{dirs: l.dirs, unserved: l.unserved, special: l.special}
}

// walkDir lists the indexable files under the folder r (at rel) into l.
// Unreadable folders and files are left out, as a walk's errors are.
func walkDir(r *os.Root, rel string, l *lister) {
	d, err := store.OpenDir(r)
	if err != nil {
		return
	}
	ents, _ := d.Entries()
	l.add(d, rel, ents)
	d.Close()
	for _, e := range ents {
		if strings.HasPrefix(e.Name, ".") || !e.Type.IsDir() {
			continue
		}
		if sub, err := store.OpenRootDir(r, e.Name); err == nil {
			walkDir(sub, rel+"/"+e.Name, l)
			sub.Close()
		}
	}
}

// indexableIn is indexable(dir+"/"+name) for the regular file name of a
// folder dir under pages/ (pages true) or sources/, without building the
// path: under pages/ only .md files are indexed, under sources/ every file.
func indexableIn(pages bool, name string) bool {
	if strings.HasPrefix(name, ".") || store.IsTempName(name) {
		return false
	}
	return !pages || strings.EqualFold(path.Ext(name), ".md")
}
