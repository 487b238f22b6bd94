//go:build !linux

package changefeed

import "os"

// keptTouch is Linux's (see touch_linux.go); here every round touches the
// sync file through the root.
type keptTouch struct{}

func (k *keptTouch) touch(root *os.Root, rel string) bool { return false }

func (k *keptTouch) close() {}
