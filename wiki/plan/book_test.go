package plan_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/plan"
)

// Concurrent saves get distinct numbers, one after the other.
func TestSaveNumbersConcurrentPlans(t *testing.T) {
	f := newFixture(t)
	book := plan.NewBook(f.store)
	ps := make([]*plan.Plan, 8)
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i := range ps {
		ps[i] = &plan.Plan{Op: "build"}
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = book.Save(context.Background(), ps[i]) }()
	}
	wg.Wait()
	var got []int
	for i, p := range ps {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		got = append(got, p.Number)
	}
	slices.Sort(got)
	if fmt.Sprint(got) != "[1 2 3 4 5 6 7 8]" {
		t.Fatalf("numbers = %v", got)
	}
	for _, p := range ps {
		if p.Name() != fmt.Sprintf("plan #%d", p.Number) {
			t.Fatalf("name = %q", p.Name())
		}
	}
	// The book lists them newest first; a tie in time goes to the higher
	// number.
	list, _ := book.List()
	if len(list) != 8 || list[0].Number != 8 || list[7].Number != 1 {
		t.Fatalf("order = %v", func() (ns []int) {
			for _, p := range list {
				ns = append(ns, p.Number)
			}
			return
		}())
	}
}
