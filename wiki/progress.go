package wiki

import "context"

// ProgressFunc receives the progress of a long operation: done units out of
// total (0 when the total is not known yet) and a short message for a
// person ("hashed 1200 sources"). It is called from the goroutine doing the
// work, or while that work waits (on a model) from one helper goroutine that
// stops before the work goes on, so never concurrently; it must not block.
// One operation may report several phases that each count from the start;
// adapters throttle, number the phases on and forward it (MCP
// notifications/progress).
type ProgressFunc func(done, total int, message string)

type progressKey struct{}

// WithProgress returns a context whose long store operations (page scans,
// source hashing, index rebuilds) report to fn.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// Progress reports progress to the [ProgressFunc] in ctx, if any.
func Progress(ctx context.Context, done, total int, message string) {
	if ctx == nil {
		return
	}
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && fn != nil {
		fn(done, total, message)
	}
}

// progressEvery is how many files a scan handles between progress reports
// and cancellation checks.
const progressEvery = 100
