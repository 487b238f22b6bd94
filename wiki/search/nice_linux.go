package search

import (
	"runtime"

	"golang.org/x/sys/unix"
)

const canLowerMergerPriority = true

// lowerMergerPriority locks the calling goroutine (scorch's merger, from
// its pre-merge event) to its thread and lowers that thread's priority to
// mergerNice. The lock is never released: when the merger ends (the index
// closes), Go ends the thread with it, so no other goroutine inherits the
// priority. Lowering a priority needs no privilege; a failure leaves the
// merger as it was.
func lowerMergerPriority() {
	runtime.LockOSThread()
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), mergerNice)
}
