package wiki

import (
	"io/fs"
	"os"
	"time"
)

// DirEntry is one name in a folder listed by [Dir.Entries]: its name (one
// path element) and type bits (fs.ModeDir, fs.ModeSymlink, 0 for a regular
// file), as the folder itself reports them.
type DirEntry struct {
	Name string
	Type fs.FileMode
}

// FileStat is what [Dir.Lstat] and [Dir.ReadFile] report of a file.
type FileStat struct {
	Size    int64
	ModTime time.Time
	Mode    fs.FileMode
}

// Dir is a folder of the wiki opened for a scan of many files (the link
// graph's walk, the temp file sweep at open): it lists its entries without
// a stat per entry, and stats and reads its files by name relative to the
// folder, with as few system calls as the platform allows (on Linux: one
// openat, fstat, read and close per file). Names must be single path
// elements taken from [Dir.Entries]; symbolic links are never followed, so
// nothing outside the folder is reached. Not safe for concurrent Close.
type Dir struct {
	r     *os.Root // the folder
	f     *os.File // the folder opened for reading
	fd    int      // f's descriptor (-1 where the platform has no use for it)
	owned *os.Root // r, when Close closes it too (a Dir made by Dup)
}

// OpenDir opens the folder that r is rooted at for a scan. Close it after
// use; r stays open.
func OpenDir(r *os.Root) (*Dir, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	return &Dir{r: r, f: f, fd: dirFD(f)}, nil
}

// Close releases the folder.
func (d *Dir) Close() error {
	err := d.f.Close()
	if d.owned != nil {
		if rerr := d.owned.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

// Dup returns a second handle on the same folder, open until its own Close
// (after d and the [os.Root] d was opened from are closed too), for stats
// that outlive the scan that listed the folder: the search index states a
// folder's files on other goroutines while the file watcher's walk moves
// on. On Linux it costs one system call (the descriptor is duplicated).
func (d *Dir) Dup() (*Dir, error) { return d.dup() }

// Entries lists the folder in the order the file system gives.
func (d *Dir) Entries() ([]DirEntry, error) { return d.entries() }

// Lstat stats the entry name of the folder without following a symbolic
// link.
func (d *Dir) Lstat(name string) (FileStat, error) { return d.lstat(name) }

// ReadFile reads the regular file name of the folder, and what a stat of
// the open file says. A file larger than limit bytes is not read: data is
// nil and st gives its size. A symbolic link or other non-regular file is
// an error.
func (d *Dir) ReadFile(name string, limit int64) (data []byte, st FileStat, err error) {
	return d.readFile(name, limit)
}

func statOf(fi fs.FileInfo) FileStat {
	return FileStat{Size: fi.Size(), ModTime: fi.ModTime(), Mode: fi.Mode()}
}

// errNotRegular is returned by ReadFile for what is not a regular file.
var errNotRegular = &fs.PathError{Op: "read", Err: fs.ErrInvalid}
