package wikitest

import (
	"testing"
	"time"
)

// BlockBound is how long a call that must never block may take in a test
// before it counts as blocked: generous, for a loaded 2-core machine.
const BlockBound = 10 * time.Second

// Within runs fn on a goroutine and returns what it returned; when fn has
// not returned after [BlockBound] the test fails at once (a call blocked
// for ever must not hang the suite). fn must not call tb.Fatal.
func Within[T any](tb testing.TB, what string, fn func() (T, error)) (T, error) {
	tb.Helper()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	start := time.Now()
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if d := time.Since(start); d > 2*time.Second {
			tb.Logf("%s took %v", what, d.Round(time.Millisecond))
		}
		return r.v, r.err
	case <-time.After(BlockBound):
		tb.Fatalf("%s did not return within %v: it is blocked", what, BlockBound)
		panic("unreachable")
	}
}
