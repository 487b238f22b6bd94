package wiki

import (
	"io/fs"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// The page catalogue's side of the change feed: applying the paths the
// watcher reported (see [Store.WatchChanges]).

// refreshPagesLocked applies changed paths to the page catalogue: reported
// files are re-read; a folder that appeared is walked; entries under a path
// that is no longer a folder, or under a folder in gone (one that went, even
// if a file took its name), are checked. Call with catMu held and the
// catalogue loaded.
func (s *Store) refreshPagesLocked(paths, gone []string) {
	var prefixes map[string]bool
	for _, p := range gone { // a folder that went, even if a file took its name
		if prefixes == nil {
			prefixes = map[string]bool{}
		}
		prefixes[p] = true
		s.catSkips.ClearUnder(p)
	}
	for _, p := range paths {
		if p != "pages" && !strings.HasPrefix(p, "pages/") {
			continue
		}
		fi, err := s.root.Lstat(p)
		s.catSkips.ClearUnder(p) // what is still there is found again below
		if err == nil && fi.Mode().IsRegular() {
			s.refreshPageLocked(p, fi, true)
			continue
		}
		if err == nil && store.IsSpecial(fi.Mode()) && catalogued(p) {
			s.catSkips.Set(p, store.SkipNotRegular)
		}
		if prefixes == nil {
			prefixes = map[string]bool{}
		}
		prefixes[p] = true
		s.catDel(p)
		if err != nil || !fi.IsDir() || (p != "pages" && !addressable(p)) {
			continue
		}
		_ = fs.WalkDir(s.root.FS(), p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if q != p && (strings.HasPrefix(d.Name(), ".") || !addressable(q)) {
					return fs.SkipDir
				}
				return nil
			}
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				s.refreshPageLocked(q, info, false)
			} else if store.IsSpecial(d.Type()) && catalogued(q) {
				s.catSkips.Set(q, store.SkipNotRegular)
			}
			return nil
		})
	}
	if len(prefixes) > 0 {
		var under []string
		s.cat.each(func(pi PageInfo) bool {
			for d := path.Dir(pi.Path); d != "."; d = path.Dir(d) {
				if prefixes[d] {
					under = append(under, pi.Path)
					break
				}
			}
			return true
		})
		for _, k := range under {
			if fi, err := s.root.Lstat(k); err != nil || !fi.Mode().IsRegular() {
				s.catDel(k)
			}
		}
	}
}

// refreshPageLocked brings the catalogue entry of the regular file p (stat
// fi) in step. A file the watcher reported (reported) is read again even
// when its size and mtime are unchanged: an edit of the same length within
// the file system's timestamp granularity (a save by rename, a script, git)
// keeps both, and the event is the only sign of it. Our own writes are read
// once more that way; an entry read unchanged is not set again (the sorted
// list stands).
func (s *Store) refreshPageLocked(p string, fi fs.FileInfo, reported bool) {
	prev, had := s.cat.get(p)
	if !isCataloguePage(p) {
		s.catDel(p)
		return
	}
	if had && !reported && prev.size == fi.Size() && prev.mtime.Equal(fi.ModTime()) {
		return
	}
	data, ok, err := s.ReadRaw(p)
	if err != nil || !ok {
		s.catDel(p)
		return
	}
	pi := pageInfoFrom(p, data)
	pi.size, pi.mtime, pi.key = fi.Size(), fi.ModTime(), PageKey(p)
	if !had || !reflect.DeepEqual(prev, pi) {
		s.catSet(p, pi)
	}
}

// isCataloguePage reports whether the scan of pages/ lists the file p: a
// .md file, no hidden folder or name on the way, not a writer temp file,
// and a path the store can address.
func isCataloguePage(p string) bool {
	if !strings.HasPrefix(p, "pages/") || !strings.EqualFold(path.Ext(p), ".md") || store.IsTempName(p) || !addressable(p) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	for d := path.Dir(p); d != "pages"; d = path.Dir(d) {
		if !addressable(d) {
			return false
		}
	}
	return true
}

// catSet puts pi in the catalogue at p, keeping catKeys in step; pi.key is
// set. Called with catMu held.
func (s *Store) catSet(p string, pi PageInfo) {
	prev, had := s.cat.get(p)
	if had && prev.key != pi.key {
		s.catKeys[prev.key] = without(s.catKeys[prev.key], p)
	}
	if !had {
		d := path.Dir(p)
		if s.catDirs[d] == 0 {
			s.catFolders = nil
		}
		s.catDirs[d]++
	}
	s.cat.set(p, pi)
	if !slices.Contains(s.catKeys[pi.key], p) {
		s.catKeys[pi.key] = append(slices.Clip(s.catKeys[pi.key]), p)
	}
}

// catDel takes p out of the catalogue and catKeys. Called with catMu held.
func (s *Store) catDel(p string) {
	if prev, ok := s.cat.get(p); ok {
		s.cat.del(p)
		if d := path.Dir(p); s.catDirs[d] > 1 {
			s.catDirs[d]--
		} else {
			delete(s.catDirs, d)
			s.catFolders = nil
		}
		if ps := without(s.catKeys[prev.key], p); len(ps) > 0 {
			s.catKeys[prev.key] = ps
		} else {
			delete(s.catKeys, prev.key)
		}
	}
}

// without returns ps without p, as a new slice (ps may be shared).
func without(ps []string, p string) []string {
	return slices.DeleteFunc(slices.Clone(ps), func(x string) bool { return x == p })
}

// keysOf indexes the catalogue cat by page key, and counts its pages by
// folder.
func keysOf(cat *catalogue) (keys map[string][]string, dirs map[string]int) {
	keys = make(map[string][]string, cat.len())
	dirs = map[string]int{}
	cat.each(func(pi PageInfo) bool {
		keys[pi.key] = append(keys[pi.key], pi.Path)
		dirs[path.Dir(pi.Path)]++
		return true
	})
	return keys, dirs
}
