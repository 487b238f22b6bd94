package wiki

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// The catalogue answers as a map of its entries would, through any mix of
// sets, deletes and merges, and a sorted slice it gave is never changed by
// what comes after.
func TestCatalogueAsMap(t *testing.T) {
	paths := []string{"pages/a.md", "pages/a-b.md", "pages/a/b.md", "pages/b.md", "pages/z/y.md", "pages/é.md"}
	for seed := range uint64(50) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			model := map[string]PageInfo{}
			var start []PageInfo
			for _, p := range paths[:r.IntN(len(paths))] {
				pi := PageInfo{Path: p, Title: "start " + p}
				model[p] = pi
				start = append(start, pi)
			}
			r.Shuffle(len(start), func(i, j int) { start[i], start[j] = start[j], start[i] })
			c := newCatalogue(start)
			type given struct {
				list []PageInfo
				want []PageInfo
			}
			var gave []given
			for step := range 40 {
				p := paths[r.IntN(len(paths))]
				switch r.IntN(4) {
				case 0, 1:
					pi := PageInfo{Path: p, Title: fmt.Sprintf("step %d", step)}
					c.set(p, pi)
					model[p] = pi
				case 2:
					c.del(p)
					delete(model, p)
				case 3:
					list, _ := c.sorted()
					gave = append(gave, given{list, slices.Clone(list)})
				}
				want := sortedOf(model)
				if c.len() != len(want) {
					t.Fatalf("step %d: len %d, want %d", step, c.len(), len(want))
				}
				for _, q := range paths {
					got, ok := c.get(q)
					w, wok := model[q]
					if ok != wok || got.Title != w.Title {
						t.Fatalf("step %d: get(%q) = %q %v, want %q %v", step, q, got.Title, ok, w.Title, wok)
					}
				}
				var each []PageInfo
				c.each(func(pi PageInfo) bool { each = append(each, pi); return true })
				sort.Slice(each, func(i, j int) bool { return each[i].Path < each[j].Path })
				if fmt.Sprint(each) != fmt.Sprint(want) {
					t.Fatalf("step %d: each gave %v, want %v", step, each, want)
				}
			}
			list, _ := c.sorted()
			if want := sortedOf(model); fmt.Sprint(list) != fmt.Sprint(want) {
				t.Fatalf("sorted %v, want %v", list, want)
			}
			if again, merged := c.sorted(); merged || len(again) > 0 && &again[0] != &list[0] {
				t.Fatalf("a second sorted without changes merged again")
			}
			for i, g := range gave {
				if fmt.Sprint(g.list) != fmt.Sprint(g.want) {
					t.Fatalf("slice %d changed after it was given: %v, was %v", i, g.list, g.want)
				}
			}
		})
	}
}

func sortedOf(m map[string]PageInfo) []PageInfo {
	out := make([]PageInfo, 0, len(m))
	for _, pi := range m {
		out = append(out, pi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
