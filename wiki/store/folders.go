package store

import (
	"os"
	"path"
	"strings"
)

// FolderCache states and reads files by name in their folder ([Dir]: one
// fstatat for a stat, one openat, fstat and read for a read) rather than
// by path through the os.Root, which opens every folder on the way for
// each call (docs/performance.md, "Index build at scale (issue 20)"). It
// keeps the folder of the last path open, so a scan that takes a folder's
// files in turn opens each folder once. A file at the top of the root, or
// one whose folder cannot be opened as a plain folder (a symbolic link, a
// FIFO), is stated and read through the os.Root. Not for concurrent use;
// the zero value is ready, Close releases the open folder.
type FolderCache struct {
	rel  string // the open folder, "" when none
	root *os.Root
	dir  *Dir
}

// open makes the folder of p the open one, and returns p's name in it, or
// nil when the folder cannot be opened as a plain folder.
func (c *FolderCache) open(root *os.Root, p string) (*Dir, string) {
	rel, name := path.Split(p)
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" {
		return nil, ""
	}
	if c.dir != nil && c.rel == rel {
		return c.dir, name
	}
	c.Close()
	r, err := OpenRootDir(root, rel)
	if err != nil {
		return nil, ""
	}
	d, err := OpenDir(r)
	if err != nil {
		r.Close()
		return nil, ""
	}
	c.rel, c.root, c.dir = rel, r, d
	return d, name
}

// Lstat states p (a path of root) without following a final symbolic link.
func (c *FolderCache) Lstat(root *os.Root, p string) (FileStat, error) {
	if d, name := c.open(root, p); d != nil {
		return d.Lstat(name)
	}
	fi, err := root.Lstat(p)
	if err != nil {
		return FileStat{}, err
	}
	return statOf(fi), nil
}

// ReadFile reads the regular file p of root whole; anything else is an
// error, as [Store.ReadFile] says (without its coded errors).
func (c *FolderCache) ReadFile(root *os.Root, p string) ([]byte, error) {
	if d, name := c.open(root, p); d != nil {
		data, _, err := d.ReadFile(name, 1<<62)
		return data, err
	}
	return readRegular(root, p)
}

// Close releases the open folder.
func (c *FolderCache) Close() {
	if c.dir != nil {
		c.dir.Close()
		c.root.Close()
	}
	c.rel, c.root, c.dir = "", nil, nil
}
