package search

import (
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The fold table: the folded form of one rune, for the runes whose folding
// does not depend on the runes around them, so that the fold of a word of
// such runes is the folded forms of its runes one after another (plus one
// bit of state, whether the accents after the last base letter are kept).
// fold takes this path first; a word with any other rune (a mark that
// composes with the letter before it, a Hangul jamo, invalid UTF-8...) goes
// through foldSlow's four normalisations. fold's answer is foldSlow's
// either way (TestFoldTablePairs, TestFoldTableCorpus, FuzzFold).
//
// Why the concatenation holds: foldSlow is NFKC, case folding (rune by
// rune), NFD, removal of the combining marks (Mn) after a base that
// foldMarksOf names, NFC. A normalisation works segment by segment, a
// segment starting at a rune of canonical combining class 0 that combines
// with nothing before it (norm's BoundaryBefore). A rune of the table is
// either such a starter in every form it passes through (so each stage of
// a word is its runes' stages one after another), or a combining mark that
// no form changes and that composes with nothing, which only a mark of a
// higher class before it could move (the walk checks the order), or a
// "join" starter no form changes (Bengali's া), which the walk takes only
// after a rune whose forms end with none of the runes it composes with.

// Kinds of fold table entries.
const (
	foldUnknown = iota // not computed yet (a page is computed whole)
	foldBad            // folding depends on context: foldSlow
	foldStarter        // a starter in every stage
	foldMark           // a combining mark (class > 0) no form changes
)

// What the marks after an entry's rune do.
const (
	afterDrop    = iota // they are dropped (the base is Latin, Greek...)
	afterKeep           // they are kept (a vowel sign of Thai, Bengali...)
	afterInherit        // as after the rune before (the entry is marks only)
)

// foldEntry is the fold table's knowledge of one rune.
type foldEntry struct {
	kind  uint8
	lead  bool  // a starter whose folded form begins with marks (Mn) that the base before may drop
	join  bool  // a starter that composes with some runes before it (Bengali's া after ে)
	ends  bool  // no form of the rune ends with a rune a join starter composes with
	after uint8 // afterDrop, afterKeep, afterInherit
	ccc   uint8 // foldMark: the rune's canonical combining class
	tail  uint8 // the highest class of the last rune of any form of the rune
	ns    uint8 // the most non-starters ending any form of the rune
	// drop is the folded form after a base whose marks are dropped, keep
	// after a base whose marks are kept (equal unless lead or foldMark).
	drop, keep string
}

// foldPage is the table's entries of 256 runes, from a multiple of 256.
type foldPage [256]foldEntry

// foldTableEnd is where the fold table ends: it covers the basic and the
// supplementary multilingual planes (512 pages of some 10 KB at most,
// whatever the text); runes above go through foldSlow.
const foldTableEnd = 0x20000

// foldPages holds the pages computed so far (a page is computed when a
// rune of it is first folded).
var foldPages [foldTableEnd >> 8]atomic.Pointer[foldPage]

// foldEntryOf returns the fold table's entry of r, a valid rune.
func foldEntryOf(r rune) *foldEntry {
	if r >= foldTableEnd {
		return &foldBadEntry
	}
	pg := &foldPages[r>>8]
	p := pg.Load()
	if p == nil {
		p = new(foldPage)
		base := r &^ 0xff
		for i := range p {
			p[i] = computeFoldEntry(base + rune(i))
		}
		if !pg.CompareAndSwap(nil, p) {
			p = pg.Load()
		}
	}
	return &p[r&0xff]
}

// foldBadEntry marks a rune whose folding depends on its neighbours (or
// that the table does not cover).
var foldBadEntry = foldEntry{kind: foldBad}

// keepBase is a base letter whose marks foldSlow keeps (Thai KO KAI).
const keepBase = "ก"

// computeFoldEntry works out the fold table's entry of r from foldSlow
// and the normalisation properties of r and of each form it takes.
func computeFoldEntry(r rune) foldEntry {
	if !utf8.ValidRune(r) || r == utf8.RuneError || isJamo(r) {
		return foldBadEntry
	}
	s := string(r)
	s1 := norm.NFKC.String(s)
	s2 := folder.String(s1)
	s3 := norm.NFD.String(s2)
	out := foldSlow(s)
	for _, f := range []string{s1, s2, out} {
		// Jamo that NFKC makes of compatibility jamo (ㄱ, ㉠) compose
		// with their neighbours (the jamo of a decomposed syllable are
		// its own).
		for _, c := range f {
			if isJamo(c) || c == utf8.RuneError {
				return foldBadEntry
			}
		}
	}
	var tail, ns uint8
	for _, f := range []string{norm.NFD.String(s), norm.NFKD.String(s), s1, s2, s3, out, norm.NFD.String(out)} {
		if f == "" {
			continue
		}
		t, n := trailingClasses(f)
		tail, ns = max(tail, t), max(ns, n)
	}
	if ccc := norm.NFD.PropertiesString(s).CCC(); ccc != 0 {
		// A mark: it must be Mn (what foldSlow drops or keeps), unchanged
		// by every form, and compose with nothing before it (a rune that
		// may is not "yes" in NFC's quick check).
		if !unicode.Is(unicode.Mn, r) || s2 != s || !unchangedByForms(s) {
			return foldBadEntry
		}
		return foldEntry{kind: foldMark, ccc: ccc, tail: ccc, ns: 1, after: afterInherit, keep: s}
	}
	ends := true
	for _, f := range []string{norm.NFD.String(s), norm.NFKD.String(s), s1, s2, s3, out, norm.NFD.String(out)} {
		if f != "" {
			last, _ := utf8.DecodeLastRuneInString(f)
			ends = ends && !joinPartners()[last]
		}
	}
	if !startsSegment(s) {
		// A join starter: one that no form changes, after a rune that
		// does not compose with it, is a starter like the others.
		if !joinStarter(r) || s1 != s || s2 != s || s3 != s || out != s || !unicode.Is(unicode.Mc, r) && !unicode.Is(unicode.Lo, r) {
			return foldBadEntry
		}
		return foldEntry{kind: foldStarter, join: true, ends: ends, tail: tail, ns: ns, after: afterKeep, drop: out, keep: out}
	}
	for _, f := range []string{s1, s2, s3} {
		if f == "" || !startsSegment(f) {
			return foldBadEntry
		}
	}
	// out is empty when it is marks that foldSlow dropped (after its
	// starting base, 0).
	if out != "" && !startsSegment(out) {
		return foldBadEntry
	}
	first, _ := utf8.DecodeRuneInString(s3)
	e := foldEntry{kind: foldStarter, ends: ends, tail: tail, ns: ns, after: afterInherit, drop: out, keep: out}
	for _, c := range s3 {
		if !unicode.Is(unicode.Mn, c) {
			if foldMarksOf(c) {
				e.after = afterDrop
			} else {
				e.after = afterKeep
			}
		}
	}
	if unicode.Is(unicode.Mn, first) {
		// Marks lead its folded form: foldSlow(s) is what follows a base
		// that drops them (foldSlow starts as after one); the form after a
		// base that keeps them is found after keepBase.
		e.lead = true
		kept := foldSlow(keepBase + s)
		if len(kept) < len(keepBase) || kept[:len(keepBase)] != keepBase {
			return foldBadEntry
		}
		e.keep = kept[len(keepBase):]
		if e.keep != "" {
			last, _ := utf8.DecodeLastRuneInString(e.keep)
			e.ends = e.ends && !joinPartners()[last]
		}
		if dropped := foldSlow("a" + s); dropped != "a"+out {
			return foldBadEntry
		}
		for _, f := range []string{e.drop, e.keep} {
			if f != "" && !startsSegment(f) {
				return foldBadEntry
			}
		}
	}
	return e
}

// joinStarter reports whether r has canonical combining class 0 and
// composes with a rune before it (NFC's quick check says "maybe").
func joinStarter(r rune) bool {
	s := string(r)
	return norm.NFD.PropertiesString(s).CCC() == 0 && !startsSegment(s)
}

// joinPartners is the set of the runes that a join starter composes with
// (that are the rest of the canonical decomposition of a rune that ends
// with a join starter, as NFC composes it; or that rest's last rune). Built
// once, from the decompositions of the first three planes (the fourth and
// above have none).
var joinPartners = sync.OnceValue(func() map[rune]bool {
	set := map[rune]bool{}
	for c := rune(0); c < 0x30000; c++ {
		d := norm.NFD.PropertiesString(string(c)).Decomposition()
		if len(d) == 0 {
			continue
		}
		j, size := utf8.DecodeLastRune(d)
		if !joinStarter(j) {
			continue
		}
		rest := string(d[:len(d)-size])
		for _, f := range []string{rest, norm.NFC.String(rest)} {
			if last, _ := utf8.DecodeLastRuneInString(f); f != "" {
				set[last] = true
			}
		}
	}
	return set
})

// startsSegment reports whether the first rune of s has canonical
// combining class 0 and combines with no rune before it, in NFC and NFKC.
func startsSegment(s string) bool {
	return norm.NFC.PropertiesString(s).BoundaryBefore() && norm.NFKC.PropertiesString(s).BoundaryBefore()
}

// unchangedByForms reports whether the rune s is left as it is by every
// normalisation form and is "yes" in their quick checks (it composes with
// no rune before it).
func unchangedByForms(s string) bool {
	for _, f := range []norm.Form{norm.NFC, norm.NFKC, norm.NFD, norm.NFKD} {
		if f.QuickSpanString(s) != len(s) || f.String(s) != s {
			return false
		}
	}
	return true
}

// trailingClasses returns the canonical combining class of the last rune
// of s and how many runes of class > 0 end s.
func trailingClasses(s string) (last, n uint8) {
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		c := norm.NFD.PropertiesString(s[i-size : i]).CCC()
		if i == len(s) {
			last = c
		}
		if c == 0 {
			break
		}
		n++
		i -= size
	}
	return last, n
}

// isJamo reports the Hangul jamo (conjoining, compatibility, half-width),
// which NFKC and NFC compose into syllables.
func isJamo(r rune) bool {
	return 0x1100 <= r && r <= 0x11FF || 0x3130 <= r && r <= 0x318F ||
		0xA960 <= r && r <= 0xA97F || 0xD7B0 <= r && r <= 0xD7FF || 0xFFA0 <= r && r <= 0xFFDC
}

// maxFoldNonStarters is how many runes of class > 0 in a row the fast path
// accepts: normalisation inserts U+034F after 30 (the Stream-Safe Text
// Format), which only foldSlow does.
const maxFoldNonStarters = 10

// appendFoldFast appends fold(s) to dst from the fold table and reports
// true, or returns dst as it was and false when a rune of s is not in the
// table (or the order of its marks would change): the caller folds s
// with foldSlow.
func appendFoldFast(dst []byte, s string) ([]byte, bool) {
	n0 := len(dst)
	dropping := true // foldSlow's base starts as 0, whose marks it drops
	ends := true     // the rune before (if any) composes with no join starter
	var tail, ns uint8
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			dropping, ends, tail, ns = true, true, 0, 0
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError {
			return dst[:n0], false
		}
		e := foldEntryOf(r)
		switch e.kind {
		case foldStarter:
			if e.join && !ends {
				return dst[:n0], false
			}
			f := e.drop
			if e.lead && !dropping {
				f = e.keep
			}
			dst = append(dst, f...)
			// Marks dropped to nothing leave the rune before next to
			// the next rune: it may compose with a join starter.
			ends = e.ends && f != ""
			tail, ns = e.tail, e.ns
			switch e.after {
			case afterDrop:
				dropping = true
			case afterKeep:
				dropping = false
			}
		case foldMark:
			if tail > e.ccc || ns >= maxFoldNonStarters {
				return dst[:n0], false
			}
			tail = e.ccc
			ns++
			ends = false // (it blocks a composition; the table need not know)
			if !dropping {
				dst = append(dst, s[i:i+size]...)
			}
		default:
			return dst[:n0], false
		}
		i += size
	}
	return dst, true
}
