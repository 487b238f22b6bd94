package wiki

import "sort"

// catalogue holds the page catalogue's entries once: sorted by path in a
// slice that readers share ([Store.PagesShared]), plus the entries set or
// deleted since that slice was made, until the next reader that needs the
// sorted list merges them in ([catalogue.sorted]). A map of every entry
// beside the sorted slice would hold each entry twice (at 144k pages about
// 45 MB more). Lookups search the slice; the changes are few between two
// merges. Not safe for concurrent use (the store holds catMu).
type catalogue struct {
	list []PageInfo           // sorted by Path; shared, never changed in place
	over map[string]*PageInfo // changed since list was made; nil: deleted
	n    int                  // entries
}

// newCatalogue returns a catalogue of pages (taken, sorted here).
func newCatalogue(pages []PageInfo) *catalogue {
	sort.Slice(pages, func(i, j int) bool { return pages[i].Path < pages[j].Path })
	return &catalogue{list: pages, n: len(pages)}
}

// find returns the index of p in list and whether it is there.
func (c *catalogue) find(p string) (int, bool) { return findPage(c.list, p) }

// findPage returns the index of the page p in list (sorted by path) and
// whether it is there.
func findPage(list []PageInfo, p string) (int, bool) {
	i := sort.Search(len(list), func(i int) bool { return list[i].Path >= p })
	return i, i < len(list) && list[i].Path == p
}

// get returns the entry at p.
func (c *catalogue) get(p string) (PageInfo, bool) {
	if o, ok := c.over[p]; ok {
		if o == nil {
			return PageInfo{}, false
		}
		return *o, true
	}
	if i, ok := c.find(p); ok {
		return c.list[i], true
	}
	return PageInfo{}, false
}

// has reports whether there is an entry at p.
func (c *catalogue) has(p string) bool {
	_, ok := c.get(p)
	return ok
}

// set puts pi at p (pi.Path is p).
func (c *catalogue) set(p string, pi PageInfo) {
	if !c.has(p) {
		c.n++
	}
	if c.over == nil {
		c.over = map[string]*PageInfo{}
	}
	c.over[p] = &pi
}

// del takes p out.
func (c *catalogue) del(p string) {
	if !c.has(p) {
		return
	}
	c.n--
	if _, ok := c.find(p); ok {
		if c.over == nil {
			c.over = map[string]*PageInfo{}
		}
		c.over[p] = nil
	} else {
		delete(c.over, p)
	}
}

// len is the number of entries.
func (c *catalogue) len() int { return c.n }

// each calls fn for every entry, in no set order, until fn returns false.
func (c *catalogue) each(fn func(pi PageInfo) bool) {
	for i := range c.list {
		if _, ok := c.over[c.list[i].Path]; ok {
			continue
		}
		if !fn(c.list[i]) {
			return
		}
	}
	for _, o := range c.over {
		if o != nil && !fn(*o) {
			return
		}
	}
}

// sorted returns every entry sorted by path, merging the changes since
// the last call into a new slice (one pass over the old one; merged says
// so); a slice returned before is never changed.
func (c *catalogue) sorted() (list []PageInfo, merged bool) {
	if len(c.over) == 0 {
		return c.list, false
	}
	add := make([]PageInfo, 0, len(c.over))
	for _, o := range c.over {
		if o != nil {
			add = append(add, *o)
		}
	}
	sort.Slice(add, func(i, j int) bool { return add[i].Path < add[j].Path })
	out := make([]PageInfo, 0, c.n)
	for _, pi := range c.list {
		for len(add) > 0 && add[0].Path < pi.Path {
			out = append(out, add[0])
			add = add[1:]
		}
		if _, ok := c.over[pi.Path]; !ok {
			out = append(out, pi)
		}
	}
	c.list, c.over = append(out, add...), nil
	return c.list, true
}
