//go:build linux

package store

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxStatFolders bounds the folders a [StatCache] keeps open.
const maxStatFolders = 256

// StatCache lstats files with one fstatat each, relative to a descriptor
// of their folder kept open between calls, instead of [os.Root.Lstat]'s
// open and close of every folder on the path (a search hit under
// pages/obsidian-help/en/Plugins/ took nine system calls). The zero value
// is ready; Close releases the descriptors. Safe for concurrent use.
//
// Rule: the stat is of what the path names now, as os.Root.Lstat's walk
// finds it. A kept folder descriptor may name a folder that has since been
// renamed or replaced, so in every call each kept folder on a hit's path is
// checked once against its parent before it is used: an fstatat of its name
// in the (checked) parent must give the same device and inode the
// descriptor has. An inode cannot be reused while a descriptor holds it, so
// equal numbers are the same folder. A folder that is not what was kept, a
// symbolic link on the path (os.Root follows those that stay inside the
// wiki), or any error falls back to os.Root.Lstat for that hit.
type StatCache struct {
	mu      sync.Mutex
	root    *os.File // the wiki's folder, opened once
	folders map[string]*statFolder
}

type statFolder struct {
	fd       int
	dev, ino uint64
}

// Lstat returns the lstat of each of rels (nil for one that fails), as
// root.Lstat would.
func (s *StatCache) Lstat(root *os.Root, rels []string) []os.FileInfo {
	out := make([]os.FileInfo, len(rels))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.root == nil {
		f, err := root.Open(".")
		if err != nil {
			for i, rel := range rels {
				out[i], _ = root.Lstat(rel)
			}
			return out
		}
		s.root = f
		s.folders = map[string]*statFolder{}
	}
	checked := map[string]int{"": int(s.root.Fd())}
	for i, rel := range rels {
		dir, name := path.Split(rel)
		dir = strings.TrimSuffix(dir, "/")
		fd := -1
		if rel == path.Clean(rel) && !strings.HasPrefix(rel, "/") && name != "" && name != "." && name != ".." {
			fd = s.folderFD(dir, checked)
		}
		if fd < 0 {
			out[i], _ = root.Lstat(rel)
			continue
		}
		var st unix.Stat_t
		err := retryEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
		if err != nil {
			if err == unix.ENOENT || err == unix.ENOTDIR {
				continue // as os.Root.Lstat: no such file
			}
			out[i], _ = root.Lstat(rel)
			continue
		}
		out[i] = statInfo(name, &st)
	}
	return out
}

// folderFD returns a descriptor of the folder dir ("" for the wiki's) that
// is checked to be what dir names now, or -1. checked holds the folders
// checked in this call.
func (s *StatCache) folderFD(dir string, checked map[string]int) int {
	if fd, ok := checked[dir]; ok {
		return fd
	}
	parentDir, name := path.Split(dir)
	parentDir = strings.TrimSuffix(parentDir, "/")
	if name == "." || name == ".." || name == "" {
		return -1
	}
	parent := s.folderFD(parentDir, checked)
	if parent < 0 {
		checked[dir] = -1
		return -1
	}
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		s.drop(dir)
		checked[dir] = -1
		return -1
	}
	if f, ok := s.folders[dir]; ok {
		if f.dev == uint64(st.Dev) && f.ino == uint64(st.Ino) {
			checked[dir] = f.fd
			return f.fd
		}
		s.drop(dir)
	}
	if len(s.folders) >= maxStatFolders {
		for d := range s.folders {
			if _, inUse := checked[d]; !inUse {
				s.drop(d)
			}
		}
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Openat(parent, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		checked[dir] = -1
		return -1
	}
	var own unix.Stat_t
	if err := unix.Fstat(fd, &own); err != nil || own.Dev != st.Dev || own.Ino != st.Ino {
		// Replaced between the fstatat and the open: not the folder checked.
		unix.Close(fd)
		checked[dir] = -1
		return -1
	}
	s.folders[dir] = &statFolder{fd: fd, dev: uint64(own.Dev), ino: uint64(own.Ino)}
	checked[dir] = fd
	return fd
}

func (s *StatCache) drop(dir string) {
	if f, ok := s.folders[dir]; ok {
		unix.Close(f.fd)
		delete(s.folders, dir)
	}
}

// Close releases the descriptors.
func (s *StatCache) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := range s.folders {
		s.drop(d)
	}
	if s.root != nil {
		s.root.Close()
		s.root = nil
	}
}

func retryEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}

// statFileInfo is an os.FileInfo made from a stat, as os makes its own.
type statFileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	sys   syscall.Stat_t // Dev and Ino, for sameFile
}

func (f *statFileInfo) Name() string       { return f.name }
func (f *statFileInfo) Size() int64        { return f.size }
func (f *statFileInfo) Mode() fs.FileMode  { return f.mode }
func (f *statFileInfo) ModTime() time.Time { return f.mtime }
func (f *statFileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f *statFileInfo) Sys() any           { return &f.sys }

// statInfo is what os.Lstat would return for st (os's fillFileStatFromSys).
func statInfo(name string, st *unix.Stat_t) os.FileInfo {
	fi := &statFileInfo{name: name, size: st.Size, mtime: time.Unix(st.Mtim.Unix())}
	fi.sys.Dev, fi.sys.Ino = uint64(st.Dev), uint64(st.Ino)
	fi.mode = fs.FileMode(st.Mode & 0o777)
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		fi.mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		fi.mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		fi.mode |= fs.ModeDir
	case syscall.S_IFIFO:
		fi.mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		fi.mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		fi.mode |= fs.ModeSocket
	}
	if st.Mode&syscall.S_ISGID != 0 {
		fi.mode |= fs.ModeSetgid
	}
	if st.Mode&syscall.S_ISUID != 0 {
		fi.mode |= fs.ModeSetuid
	}
	if st.Mode&syscall.S_ISVTX != 0 {
		fi.mode |= fs.ModeSticky
	}
	return fi
}

// SameFile is os.SameFile for stats from os and from statInfo alike.
func SameFile(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return os.SameFile(a, b)
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
