package links

import (
	"slices"
	"sync"
)

// sortedList is a sorted list of paths that views share, changed by a
// write without a copy of the whole list: base is never written once a
// view holds it, add (sorted, none in base) and del (sorted, all in base)
// are the changes since, and the list itself is merged on first read. The
// changes are folded into a new base when they grow past a sixty-fourth of
// it, so a write copies at most that much.
type sortedList struct {
	base, add, del []string

	mu  sync.Mutex
	all []string // base with add and del applied; nil until read
}

func newSortedList(xs []string) *sortedList { return &sortedList{base: xs, all: xs} }

// list returns the paths, sorted; callers must not change it.
func (l *sortedList) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.all == nil {
		l.all = mergeSorted(l.base, l.add, l.del)
	}
	return l.all
}

// len is len(l.list()) without the merge.
func (l *sortedList) len() int { return len(l.base) + len(l.add) - len(l.del) }

// with returns l with added (none in l) added and gone (all in l) taken
// out; l is unchanged.
func (l *sortedList) with(added, gone []string) *sortedList {
	if len(added) == 0 && len(gone) == 0 {
		return l
	}
	l.mu.Lock()
	base, add, del := l.base, l.add, l.del
	if l.all != nil {
		base, add, del = l.all, nil, nil
	}
	l.mu.Unlock()
	inBase := func(p string) bool { _, ok := slices.BinarySearch(base, p); return ok }
	var addIn, addOut, delIn, delOut []string // into and out of add and del
	for _, p := range added {
		if inBase(p) {
			delOut = append(delOut, p) // it was taken out of base: back
		} else {
			addIn = append(addIn, p)
		}
	}
	for _, p := range gone {
		if inBase(p) {
			delIn = append(delIn, p)
		} else {
			addOut = append(addOut, p)
		}
	}
	nl := &sortedList{base: base, add: mergeSorted(add, addIn, addOut), del: mergeSorted(del, delIn, delOut)}
	if n := len(nl.add) + len(nl.del); n > 64 && n > len(base)/64 {
		return newSortedList(mergeSorted(base, nl.add, nl.del))
	}
	if len(nl.add) == 0 && len(nl.del) == 0 {
		nl.add, nl.del, nl.all = nil, nil, base
	}
	return nl
}
