//go:build unix

package changefeed

import (
	"io/fs"
	"syscall"
)

// fileID identifies a folder across renames (device and inode).
type fileID struct{ dev, ino uint64 }

// idOf is fi's identity; zero when unknown.
func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{}
}
