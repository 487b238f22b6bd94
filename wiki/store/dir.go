package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
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

// ReadHead reads the start of the regular file name of the folder into buf:
// n bytes, len(buf) at most (fewer only at the end of the file), and what a
// stat of the open file says (st.Size above n: the file goes on). A
// symbolic link or other non-regular file is an error. A scan that needs
// only the head of each file reads it with no allocation.
func (d *Dir) ReadHead(name string, buf []byte) (n int, st FileStat, err error) {
	return d.readHead(name, buf)
}

func statOf(fi fs.FileInfo) FileStat {
	return FileStat{Size: fi.Size(), ModTime: fi.ModTime(), Mode: fi.Mode()}
}

// errNotRegular is returned by ReadFile for what is not a regular file.
var errNotRegular = &fs.PathError{Op: "read", Err: ErrNotRegular}

// ErrNotRegular is in the chain of every error a reader of wiki files
// returns for a FIFO, socket, device or other file that is not a regular
// file (errors.Is): callers that scan many files skip and count those.
var ErrNotRegular = errors.New("not a regular file")

// FileKind names what the file of mode m is, for messages: "a FIFO", "a
// socket", "a device", "a folder", "a symbolic link", "a regular file".
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a file llmwiki can read"
}

// NotRegularError is the coded error for rel, a file of the wiki of mode m
// that is not a regular file (nor a folder).
func NotRegularError(rel string, m fs.FileMode) *Error {
	return &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%s is not a regular file (%s); llmwiki reads and writes only regular files", rel, FileKind(m)), Err: ErrNotRegular}
}

// openRegular opens rel (slash-separated, relative to root) for reading,
// without ever blocking on what is not a regular file: a FIFO, socket or
// device put in a file's place is a [NotRegularError], a folder an
// "is a folder" error, both coded; other failures are the root's own
// errors (fs.ErrNotExist for a missing file). Symbolic links inside the
// root are followed, as [os.Root] does; the file opened is what is
// checked. Every read of a file of the wiki goes through it ([Store.OpenFile],
// [Store.ReadFile]; folder scans use [Dir.ReadFile], which checks the same
// way).
func openRegular(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	return openRegularFlag(root, rel, os.O_RDONLY, 0)
}

// openRegularFlag is openRegular with the flags and permissions of
// [os.OpenFile], for the files of .llmwiki/ that are appended to in place
// (the audit log, the lock file): a FIFO there would take writes until its
// buffer filled and then block the writer, which holds a lock.
func openRegularFlag(root *os.Root, rel string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := openNoBlock(root, rel, flag, perm)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): name it as what it is.
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		if fi, serr := root.Stat(rel); serr == nil && IsSpecial(fi.Mode()) {
			return nil, nil, NotRegularError(rel, fi.Mode())
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, nil, Errorf(CodeInvalid, "%s is a folder, not a file", rel)
		}
		return nil, nil, NotRegularError(rel, fi.Mode())
	}
	return f, fi, nil
}

// readRegular reads all of rel through openRegular.
func readRegular(root *os.Root, rel string) ([]byte, error) {
	f, fi, err := openRegular(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if fi.Size() < 1<<40 {
		size += int(fi.Size())
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// readDir lists the folder rel of root sorted by name, as fs.ReadDir does,
// without ever blocking on a FIFO or device put where the folder should be
// (its open fails: not a folder).
func readDir(root *os.Root, rel string) ([]fs.DirEntry, error) {
	f, err := openDir(root, rel)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// ReadDir lists the folder rel of the wiki sorted by name, as fs.ReadDir
// of [Store.Root]'s FS does, except that a FIFO or device in the folder's
// place is an error at once, never waited on.
func (s *Store) ReadDir(rel string) ([]fs.DirEntry, error) { return readDir(s.root, rel) }

// OpenRootDir is root.OpenRoot(rel) for a folder of the wiki, after an
// lstat says rel is a folder: os.Root's OpenRoot of a FIFO waits in open(2)
// for a writer, and a walk or the change feed may name a folder that a FIFO
// has replaced since.
func OpenRootDir(root *os.Root, rel string) (*os.Root, error) {
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "openroot", Path: rel, Err: errors.New("not a folder")}
	}
	return root.OpenRoot(rel)
}
