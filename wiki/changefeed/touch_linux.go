//go:build linux

package changefeed

import (
	"os"
	"path"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// keptTouch touches the sync file through descriptors of .llmwiki and
// .llmwiki/watch kept open between rounds: four system calls, where
// os.Root's Lstat and Chtimes open and close every folder on the path
// (ten). Each round checks the kept folders against what the path names
// now, each against its (checked) parent, by device and inode (an inode
// cannot be reused while a descriptor holds it), and that the sync file is
// a regular file; it changes the file's times without following a link.
// Anything else (a folder replaced, the file missing or not a regular
// file, an error) drops the descriptors and leaves the round to
// [Feed.touchSync]'s path through the root, which repairs what it finds.
type keptTouch struct {
	mu     sync.Mutex
	closed bool
	root   *os.File // the wiki's folder; nil when not open
	state  int      // .llmwiki (O_PATH)
	watch  int      // .llmwiki/watch (O_PATH)
	ids    [2]fileID
}

// touch changes the times of the sync file rel (in syncDir) to now, and
// reports whether it did.
func (k *keptTouch) touch(root *os.Root, rel string) bool {
	if path.Dir(rel) != syncDir {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return false
	}
	if k.root == nil && !k.open(root) {
		return false
	}
	name := path.Base(rel)
	var st unix.Stat_t
	if !sameDir(int(k.root.Fd()), ".llmwiki", k.ids[0]) || !sameDir(k.state, "watch", k.ids[1]) ||
		unix.Fstatat(k.watch, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		k.closeLocked()
		return false
	}
	now := unix.NsecToTimespec(time.Now().UnixNano())
	if unix.UtimesNanoAt(k.watch, name, []unix.Timespec{now, now}, unix.AT_SYMLINK_NOFOLLOW) != nil {
		k.closeLocked()
		return false
	}
	return true
}

// sameDir reports whether name in the folder dirfd is a folder (not a
// link) with identity id.
func sameDir(dirfd int, name string, id fileID) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
		(fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}) == id
}

func (k *keptTouch) open(root *os.Root) bool {
	r, err := root.Open(".")
	if err != nil {
		return false
	}
	k.root, k.state, k.watch = r, -1, -1
	dir := int(r.Fd())
	for i, name := range []string{".llmwiki", "watch"} {
		fd, err := unix.Openat(dir, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			k.closeLocked()
			return false
		}
		if i == 0 {
			k.state = fd
		} else {
			k.watch = fd
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			k.closeLocked()
			return false
		}
		k.ids[i] = fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
		dir = fd
	}
	return true
}

func (k *keptTouch) closeLocked() {
	if k.root == nil {
		return // not open (the zero value's descriptors are not -1)
	}
	for _, fd := range []int{k.state, k.watch} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	if k.root != nil {
		k.root.Close()
	}
	k.root, k.state, k.watch = nil, -1, -1
}

// close releases the descriptors; later touches report false.
func (k *keptTouch) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	k.closeLocked()
}
