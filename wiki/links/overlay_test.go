package links

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestOverlay: a chain of overlays, each made by next from the one before
// and changed at random, reads like a plain map given the same changes, and
// an earlier overlay still reads as it did (views keep being read after a
// newer one exists), through compactions.
func TestOverlay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string]int{}
	for i := range 300 {
		want[fmt.Sprint("k", i)] = i
	}
	o := overlay[int]{base: cloneMap(want)}
	type saved struct {
		o    overlay[int]
		want map[string]int
	}
	var old []saved
	for step := range 400 {
		o = o.next()
		for range 1 + rng.IntN(8) {
			k := fmt.Sprint("k", rng.IntN(400))
			if rng.IntN(3) == 0 {
				o.del(k)
				delete(want, k)
			} else {
				o.set(k, step)
				want[k] = step
			}
		}
		if got := o.flat(); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: overlay differs from the map", step)
		}
		for k, v := range want {
			if got, ok := o.get(k); !ok || got != v {
				t.Fatalf("step %d: get(%s) = %d %v, want %d", step, k, got, ok, v)
			}
		}
		if _, ok := o.get("k999"); ok {
			t.Fatal("get of a missing key")
		}
		if step%50 == 0 {
			old = append(old, saved{o, cloneMap(want)})
		}
	}
	for i, s := range old {
		if got := s.o.flat(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("overlay %d changed after newer ones were made", i)
		}
	}
}

func cloneMap(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
