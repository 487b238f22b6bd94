//go:build !unix

package changefeed

import "io/fs"

// fileID identifies a folder across renames; unknown here (the watcher
// keys its watches by path on these platforms).
type fileID struct{ dev, ino uint64 }

// idOf is fi's identity; always zero here.
func idOf(fs.FileInfo) fileID { return fileID{} }
