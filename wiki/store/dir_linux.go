//go:build linux

package store

import (
	"io/fs"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

func dirFD(f *os.File) int { return int(f.Fd()) }

// openDir opens the folder rel of root; O_DIRECTORY makes the open of
// anything else fail before a FIFO's open could wait.
func openDir(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
}

// openNoBlock opens rel of root with flag and O_NONBLOCK: the open of a
// FIFO with no writer (or a device that waits for a carrier) returns at
// once instead of waiting for ever; openRegular then refuses it by its
// fstat. O_NONBLOCK changes nothing for a regular file.
func openNoBlock(root *os.Root, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	return root.OpenFile(rel, flag|unix.O_NONBLOCK, perm)
}

// entries reads the names through a duplicate of the folder's descriptor
// opened as a plain file: a folder opened through an os.Root lstats every
// entry as it lists them, which a scan of 40k files does not need. Only
// Name and Type of the listed entries are used (their Info would resolve a
// path).
func (d *Dir) entries() ([]DirEntry, error) {
	fd, err := retry(func() (int, error) { return unix.FcntlInt(uintptr(d.fd), unix.F_DUPFD_CLOEXEC, 0) })
	runtime.KeepAlive(d.f)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), d.f.Name())
	defer f.Close()
	des, err := f.ReadDir(-1)
	out := make([]DirEntry, len(des))
	for i, e := range des {
		out[i] = DirEntry{Name: e.Name(), Type: e.Type()}
	}
	return out, err
}

// dup duplicates the folder's descriptor: lstat, readFile and entries use
// only fd, never r, on Linux.
func (d *Dir) dup() (*Dir, error) {
	fd, err := retry(func() (int, error) { return unix.FcntlInt(uintptr(d.fd), unix.F_DUPFD_CLOEXEC, 0) })
	runtime.KeepAlive(d.f)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: d.f.Name(), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.f.Name())
	return &Dir{f: f, fd: fd}, nil
}

// retry calls fn again while it is interrupted by a signal.
func retry(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != unix.EINTR {
			return n, err
		}
	}
}

func statFrom(st *unix.Stat_t) FileStat {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFREG:
	default:
		m |= fs.ModeIrregular
	}
	return FileStat{Size: st.Size, ModTime: time.Unix(st.Mtim.Unix()), Mode: m}
}

func (d *Dir) lstat(name string) (FileStat, error) {
	defer runtime.KeepAlive(d.f)
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return FileStat{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return statFrom(&st), nil
}

func (d *Dir) readFile(name string, limit int64) ([]byte, FileStat, error) {
	defer runtime.KeepAlive(d.f)
	// O_NONBLOCK: a FIFO put in a file's place must not block the open.
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	})
	if err != nil {
		return nil, FileStat{}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
		return nil, FileStat{}, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	fst := statFrom(&st)
	if !fst.Mode.IsRegular() {
		return nil, fst, &fs.PathError{Op: "read", Path: name, Err: errNotRegular.Err}
	}
	if st.Size > limit {
		return nil, fst, nil
	}
	// One byte more than the size: a short read is the end of a regular
	// file; a full one means it grew, and reading goes on.
	buf := make([]byte, 0, st.Size+1)
	for {
		n, err := retry(func() (int, error) { return unix.Read(fd, buf[len(buf):cap(buf)]) })
		if err != nil {
			return nil, fst, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if len(buf) < cap(buf) {
			break
		}
		if int64(len(buf)) > limit {
			return nil, fst, nil
		}
		buf = append(buf, 0)[:len(buf)]
	}
	return buf, fst, nil
}

func (d *Dir) readHead(name string, buf []byte) (int, FileStat, error) {
	defer runtime.KeepAlive(d.f)
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	})
	if err != nil {
		return 0, FileStat{}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
		return 0, FileStat{}, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	fst := statFrom(&st)
	if !fst.Mode.IsRegular() {
		return 0, fst, &fs.PathError{Op: "read", Path: name, Err: errNotRegular.Err}
	}
	n := 0
	for n < len(buf) {
		m, err := retry(func() (int, error) { return unix.Read(fd, buf[n:]) })
		if err != nil {
			return 0, fst, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m <= 0 {
			break
		}
		n += m
		if int64(n) >= st.Size {
			break // a regular file's end: no read of 0 bytes to learn it
		}
	}
	return n, fst, nil
}
