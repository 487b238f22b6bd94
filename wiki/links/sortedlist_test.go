package links

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
)

// A sortedList changed file by file holds what the set it follows holds,
// sorted, whether or not it is read between changes, across folds.
func TestSortedListFollowsSet(t *testing.T) {
	for _, c := range []struct {
		name       string
		start, uni int // files at start, names to draw from
		readEvery  int // list() every this many changes (0: never until the end)
		batch      int // files changed at once, at most
	}{
		{"empty start", 0, 50, 0, 1},
		{"small, read each time", 20, 60, 1, 3},
		{"large, never read", 3000, 6000, 0, 2},
		{"large, read now and then", 3000, 6000, 97, 4},
		{"churn on few names", 100, 120, 7, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(c.start + c.uni)))
			name := func(i int) string { return fmt.Sprintf("pages/f%05d.md", i) }
			set := map[string]bool{}
			for len(set) < c.start {
				set[name(rng.Intn(c.uni))] = true
			}
			l := newSortedList(slices.Sorted(maps.Keys(set)))
			type kept struct {
				l    *sortedList
				want []string
			}
			var earlier []kept // every 500th list with what it held then
			for step := range 4000 {
				var added, gone []string
				pick := map[string]bool{}
				for range 1 + rng.Intn(c.batch) {
					p := name(rng.Intn(c.uni))
					if pick[p] {
						continue
					}
					pick[p] = true
					if set[p] {
						gone = append(gone, p)
						delete(set, p)
					} else {
						added = append(added, p)
						set[p] = true
					}
				}
				l = l.with(added, gone)
				if step%500 == 0 {
					earlier = append(earlier, kept{l, slices.Sorted(maps.Keys(set))})
				}
				if c.readEvery > 0 && step%c.readEvery == 0 || step == 3999 {
					if got, want := l.list(), slices.Sorted(maps.Keys(set)); !slices.Equal(got, want) || l.len() != len(want) {
						t.Fatalf("step %d: %d files (len %d), want %d", step, len(got), l.len(), len(want))
					}
				}
			}
			// The later changes left the earlier lists as they were.
			for i, k := range earlier {
				if !slices.Equal(k.l.list(), k.want) {
					t.Fatalf("list %d changed after it was made", i*500)
				}
			}
		})
	}
}
