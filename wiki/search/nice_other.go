//go:build !linux

package search

const canLowerMergerPriority = false

// lowerMergerPriority does nothing where one thread's priority cannot be
// lowered on its own; see nice_linux.go.
func lowerMergerPriority() {}
