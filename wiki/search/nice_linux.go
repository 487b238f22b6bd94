package search

import (
	"runtime"

	"golang.org/x/sys/unix"
)

const canLowerMergerPriority = true

// lowerMergerPriority locks the calling goroutine (scorch's merger, from
// its pre-merge event) to its thread and lowers that thread's priority by
// mergerNice from the thread's own (a server started with nice 5 merges at
// 15; never past 19, and never raised, which as root would be allowed).
// The lock is never released: when the merger ends (the index closes), Go
// ends the thread with it, so no other goroutine inherits the priority.
// Lowering a priority needs no privilege; a failure leaves the merger as it
// was.
func lowerMergerPriority() {
	runtime.LockOSThread()
	tid := unix.Gettid()
	// The raw system call answers 20 - nice (1 to 40).
	p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, min(20-p+mergerNice, 19))
}
