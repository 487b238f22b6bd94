package links

import "maps"

// overlay is a map from path to V that views share: base is never written
// once a view holds it, and top holds the entries changed since base was
// made (a deleted entry is one with del set). A new view copies top only,
// so a write to one page costs a copy of the changes since the last
// compaction, not of the whole maps; top is folded into a new base when
// it grows past a sixteenth of base.
type overlay[V any] struct {
	base map[string]V
	top  map[string]ovEntry[V]
}

type ovEntry[V any] struct {
	v   V
	del bool
}

func (o *overlay[V]) get(k string) (V, bool) {
	if e, ok := o.top[k]; ok {
		return e.v, !e.del
	}
	v, ok := o.base[k]
	return v, ok
}

// at is get without the ok.
func (o *overlay[V]) at(k string) V {
	v, _ := o.get(k)
	return v
}

// set and del change o; only a view being built may call them.
func (o *overlay[V]) set(k string, v V) {
	if o.top == nil {
		o.top = map[string]ovEntry[V]{}
	}
	o.top[k] = ovEntry[V]{v: v}
}

func (o *overlay[V]) del(k string) {
	if _, ok := o.base[k]; !ok {
		delete(o.top, k)
		return
	}
	if o.top == nil {
		o.top = map[string]ovEntry[V]{}
	}
	o.top[k] = ovEntry[V]{del: true}
}

// each calls fn for every entry, in no particular order.
func (o *overlay[V]) each(fn func(k string, v V)) {
	for k, v := range o.base {
		if _, ok := o.top[k]; !ok {
			fn(k, v)
		}
	}
	for k, e := range o.top {
		if !e.del {
			fn(k, e.v)
		}
	}
}

// next returns a copy of o for a new view to change: top is copied, base
// shared (or, when top has grown large, both folded into a new base).
func (o *overlay[V]) next() overlay[V] {
	if len(o.top) > 64 && len(o.top) > len(o.base)/16 {
		return overlay[V]{base: o.flat()}
	}
	return overlay[V]{base: o.base, top: maps.Clone(o.top)}
}

// flat returns every entry in one new map.
func (o *overlay[V]) flat() map[string]V {
	m := make(map[string]V, len(o.base)+len(o.top))
	o.each(func(k string, v V) { m[k] = v })
	return m
}
