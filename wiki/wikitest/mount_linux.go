//go:build linux

package wikitest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes ("4m") at a new folder and
// returns it, unmounted when the test ends; it skips the test, saying why
// and what covers the case instead (instead), when it cannot (not root, no
// CAP_SYS_ADMIN). File modes alone prove nothing under root: a real mount
// is the only way to see what a full or read-only disk does.
func MountTmpfs(tb testing.TB, size, instead string) string {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skipf("skipping: mounting a tmpfs needs root (%s)", instead)
	}
	mnt := filepath.Join(tb.TempDir(), "mnt")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size="+size); err != nil {
		tb.Skipf("skipping: cannot mount a tmpfs here (%v); %s", err, instead)
	}
	tb.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	return mnt
}

// Remount remounts the tmpfs at mnt read-only (ro) or writable again. Linux
// refuses to remount a file system read-only while a process holds a file
// on it open for writing: close every store on it first.
func Remount(tb testing.TB, mnt string, ro bool) {
	tb.Helper()
	flags := uintptr(syscall.MS_REMOUNT)
	if ro {
		flags |= syscall.MS_RDONLY
	}
	if err := syscall.Mount("", mnt, "", flags, ""); err != nil {
		tb.Fatalf("remount %s (read-only %v): %v", mnt, ro, err)
	}
}

// BindReadOnly mounts a read-only view of the folder src at a new folder
// and returns it, unmounted when the test ends (a container's read-only
// volume: src stays writable underneath). It skips the test when it
// cannot, saying what covers the case instead.
func BindReadOnly(tb testing.TB, src, instead string) string {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skipf("skipping: a bind mount needs root (%s)", instead)
	}
	view := filepath.Join(tb.TempDir(), "view")
	if err := os.MkdirAll(view, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Mount(src, view, "", syscall.MS_BIND, ""); err != nil {
		tb.Skipf("skipping: cannot bind-mount here (%v); %s", err, instead)
	}
	tb.Cleanup(func() { syscall.Unmount(view, syscall.MNT_DETACH) })
	if err := syscall.Mount("", view, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		tb.Fatalf("remount the bind mount read-only: %v", err)
	}
	return view
}
