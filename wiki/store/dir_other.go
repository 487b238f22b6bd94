//go:build !linux

package store

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

func dirFD(*os.File) int { return -1 }

// openDir opens the folder rel of root after a stat says it is one.
func openDir(root *os.Root, rel string) (*os.File, error) {
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errors.New("not a folder")}
	}
	return root.Open(rel)
}

// openNoBlock opens rel of root with flag after a stat says it is a
// regular file or a folder (or, with os.O_CREATE, missing), so that a FIFO
// or device is refused without being opened (the open of a FIFO waits for
// a writer). openRegular checks the opened file again.
func openNoBlock(root *os.Root, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	fi, err := root.Stat(rel)
	switch {
	case err == nil && !fi.Mode().IsRegular() && !fi.IsDir():
		return nil, NotRegularError(rel, fi.Mode())
	case err != nil && (flag&os.O_CREATE == 0 || !errors.Is(err, fs.ErrNotExist)):
		return nil, err
	}
	return root.OpenFile(rel, flag, perm)
}

// dup opens the folder again as a root of its own, which the new Dir
// closes with itself (lstat and readFile go through r here).
func (d *Dir) dup() (*Dir, error) {
	r, err := d.r.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	nd, err := OpenDir(r)
	if err != nil {
		r.Close()
		return nil, err
	}
	nd.owned = r
	return nd, nil
}

func (d *Dir) entries() ([]DirEntry, error) {
	des, err := d.f.ReadDir(-1)
	out := make([]DirEntry, len(des))
	for i, e := range des {
		out[i] = DirEntry{Name: e.Name(), Type: e.Type()}
	}
	return out, err
}

func (d *Dir) lstat(name string) (FileStat, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return FileStat{}, err
	}
	return statOf(fi), nil
}

func (d *Dir) readFile(name string, limit int64) ([]byte, FileStat, error) {
	lfi, err := d.r.Lstat(name)
	if err != nil {
		return nil, FileStat{}, err
	}
	if !lfi.Mode().IsRegular() {
		return nil, statOf(lfi), &fs.PathError{Op: "read", Path: name, Err: errNotRegular.Err}
	}
	f, err := d.r.Open(name)
	if err != nil {
		return nil, FileStat{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, FileStat{}, err
	}
	st := statOf(fi)
	if fi.Size() > limit {
		return nil, st, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, st, err
	}
	if int64(len(data)) > limit {
		return nil, st, nil
	}
	return data, st, nil
}

func (d *Dir) readHead(name string, buf []byte) (int, FileStat, error) {
	lfi, err := d.r.Lstat(name)
	if err != nil {
		return 0, FileStat{}, err
	}
	if !lfi.Mode().IsRegular() {
		return 0, statOf(lfi), &fs.PathError{Op: "read", Path: name, Err: errNotRegular.Err}
	}
	f, err := d.r.Open(name)
	if err != nil {
		return 0, FileStat{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, FileStat{}, err
	}
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	if err != nil {
		return 0, statOf(fi), err
	}
	return n, statOf(fi), nil
}
