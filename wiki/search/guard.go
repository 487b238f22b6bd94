package search

// Damage to the index files while the server runs.
//
// bleve's scorch reads its segments (zap files) and its root.bolt through
// mmap, and neither zapx nor bbolt can be told not to (blevesearch/bleve
// PR #1311, a non-mmap mode for zap, was never merged). A file truncated in
// place under a mapping makes every read past its new end a SIGBUS, which
// the Go runtime turns into a panic only in goroutines that asked for it
// with debug.SetPanicOnFault; anywhere else the process dies ("fatal error:
// fault"). So:
//
//   - before every search and every batch, checkDisk compares the files of
//     the open index with what was recorded of them (root.bolt: same inode,
//     never shorter, both meta pages intact; each live segment: same inode,
//     same mtime, exactly as long as its mapping). On any difference the
//     index is abandoned: it is never read, written or closed again (Close
//     would wait for background goroutines that may be stuck in, or about
//     to read, the damaged mappings), and a new index is built in a fresh
//     folder, so that a background goroutine of the old one can never
//     write into or delete from the new one. The abandoned index's memory,
//     mappings and goroutines are leaked on purpose until the process
//     exits; damage is rare and a leak is better than a crash.
//   - every goroutine of bleve that fires an event (the persister, the
//     merger) gets SetPanicOnFault in the event callback, so a fault there
//     becomes a panic that bleve's loops recover and report through the
//     async error callback, which abandons the index and rebuilds it.
//     An abandoned index's persister and merger are parked in their next
//     event for good, and its purger never runs.
//   - our own calls into bleve (Open, Batch, Search, Close) run with
//     SetPanicOnFault and recover.
//
// What remains (the package doc says so too): damage that lands
// while a search or batch is already past its check can still fault in a
// goroutine bleve starts without recovery (the per-segment goroutines of
// prefix filters, the introducer), or in the persister's first round after
// an open, before its first event.

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// callbackName is the name under which the callbacks below are registered
// with scorch (its config takes callbacks by name).
const callbackName = "llmwiki-search"

func init() {
	scorch.RegistryEventCallbacks[callbackName] = onScorchEvent
	scorch.RegistryAsyncErrorCallbacks[callbackName] = onScorchError
}

// guard follows one open bleve index: whether it was abandoned, what its
// files looked like, and whom to tell when its background work fails.
type guard struct {
	dir       string // host path of the index folder
	abandoned atomic.Bool
	dead      chan struct{} // closed when a background goroutine failed
	deadOnce  sync.Once
	onError   func(*guard, error) // called (in its own goroutine) on a background failure
	pending   atomic.Int64        // batches applied but not yet on disk
	lowered   atomic.Bool         // the merger's thread runs at low priority (merge.go)
	built     atomic.Bool         // the first reconciliation ended: the merger may be lowered
	memOnly   bool                // opened read-only: batches are never persisted (home.go)

	mu       sync.Mutex
	meta     os.FileInfo // index_meta.json when opened
	bolt     os.FileInfo // root.bolt when opened
	boltSize int64       // the most root.bolt was seen to hold; bbolt never shrinks it
	boltFile *os.File    // root.bolt opened when recorded, for checkBoltMeta's reads
	segs     map[string]os.FileInfo
}

var (
	guardsByPath   sync.Map              // scorch store path → *guard
	guardsByScorch sync.Map              // *scorch.Scorch → *guard
	parked         = make(chan struct{}) // never closed: abandoned goroutines wait here
)

// onScorchEvent runs in whichever goroutine fires the event: bleve's
// persister and merger, or ours (Batch, Close).
func onScorchEvent(e scorch.Event) bool {
	// A fault in this goroutine from now on is a panic, which bleve's
	// persister and merger loops recover and report, not a crash.
	debug.SetPanicOnFault(true)
	v, ok := guardsByScorch.Load(e.Scorch)
	if ok && e.Kind == scorch.EventKindPreMergeCheck && lowPriorityMerges() && v.(*guard).built.Load() && v.(*guard).lowered.CompareAndSwap(false, true) {
		// Fired in the merger's goroutine before each merge plan. Not
		// during the build: its persister waits for the merger to catch
		// up, so a merger starved by other work would stall the build.
		lowerMergerPriority()
	}
	if !ok || !v.(*guard).abandoned.Load() {
		return true
	}
	switch e.Kind {
	case scorch.EventKindPreMergeCheck, scorch.EventKindMergerProgress,
		scorch.EventKindPersisterProgress, scorch.EventKindPurgerCheck,
		scorch.EventKindMergeTaskIntroductionStart:
		// The index was abandoned: its background goroutines must not
		// touch its files again (a vetoed merge would only spin).
		<-parked
	}
	return false
}

// onScorchError receives the errors of scorch's background goroutines
// (persister, merger, introducer), recovered panics and faults included.
func onScorchError(err error, path string) {
	v, ok := guardsByPath.Load(filepath.Clean(path))
	if !ok {
		return
	}
	g := v.(*guard)
	g.deadOnce.Do(func() { close(g.dead) })
	if g.abandoned.Load() || g.onError == nil {
		return
	}
	go g.onError(g, err)
}

// openGuarded opens the bleve index in dir with the guard's callbacks,
// turning a panic or fault of a damaged index into an error.
//
// readOnly opens it with scorch's read_only (a read-only wiki, home.go):
// nothing is written, and batches stay in memory (memOnly).
func openGuarded(dir string, onError func(*guard, error), readOnly bool) (bleve.Index, *guard, error) {
	cfg := runtimeConfig()
	if readOnly {
		cfg["read_only"] = true
	}
	g := newGuard(dir, onError)
	g.memOnly = readOnly
	guardsByPath.Store(filepath.Join(dir, "store"), g)
	idx, err := protect(func() (bleve.Index, error) { return bleve.OpenUsing(dir, cfg) })
	if err != nil {
		guardsByPath.CompareAndDelete(filepath.Join(dir, "store"), g)
		return nil, nil, err
	}
	g.register(idx)
	if err := g.record(idx); err != nil {
		g.abandoned.Store(true)
		return nil, nil, err
	}
	return idx, g, nil
}

func newGuard(dir string, onError func(*guard, error)) *guard {
	return &guard{dir: dir, dead: make(chan struct{}), onError: onError, segs: map[string]os.FileInfo{}}
}

// register links the scorch behind idx to g, so events find it.
func (g *guard) register(idx bleve.Index) {
	if adv, err := idx.Advanced(); err == nil {
		if s, ok := adv.(*scorch.Scorch); ok {
			guardsByScorch.Store(s, g)
		}
	}
}

// unregister forgets a closed index.
func (g *guard) unregister(idx bleve.Index) {
	if g == nil {
		return
	}
	guardsByPath.CompareAndDelete(filepath.Join(g.dir, "store"), g)
	if adv, err := idx.Advanced(); err == nil {
		guardsByScorch.CompareAndDelete(adv, g)
	}
	g.mu.Lock()
	if g.boltFile != nil {
		g.boltFile.Close()
		g.boltFile = nil
	}
	g.mu.Unlock()
}

// protect runs fn with faults turned into panics and panics into errors.
func protect[T any](fn func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the index failed: %v", r)
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	return fn()
}

// abandon marks the index as never to be touched again.
func (g *guard) abandon() {
	if g == nil {
		return
	}
	g.abandoned.Store(true)
}

// record notes the files of a freshly opened index.
func (g *guard) record(idx bleve.Index) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	meta, err := os.Stat(filepath.Join(g.dir, "index_meta.json"))
	if err != nil {
		return err
	}
	bolt, err := os.Stat(filepath.Join(g.dir, "store", "root.bolt"))
	if err != nil {
		return err
	}
	g.meta, g.bolt, g.boltSize = meta, bolt, bolt.Size()
	boltPath := filepath.Join(g.dir, "store", "root.bolt")
	if err := checkBoltMeta(boltPath); err != nil {
		return err
	}
	// Kept open for the checks before each search: while the path names
	// this same file (check's SameFile), reading it through this handle
	// reads what an open of the path would, without the open.
	if g.boltFile != nil {
		g.boltFile.Close()
		g.boltFile = nil
	}
	if f, err := os.Open(boltPath); err == nil {
		if fi, err := f.Stat(); err == nil && os.SameFile(fi, bolt) {
			g.boltFile = f
		} else {
			f.Close()
		}
	}
	return g.checkSegmentsLocked(idx)
}

// check reports how the files of the index differ from what was recorded
// (nil when they look sound). It reads no mapped memory: only stat and
// pread of the files themselves.
func (g *guard) check(idx bleve.Index) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	meta, err := os.Stat(filepath.Join(g.dir, "index_meta.json"))
	if err != nil || !os.SameFile(meta, g.meta) {
		return errFolderGone
	}
	boltPath := filepath.Join(g.dir, "store", "root.bolt")
	bolt, err := os.Stat(boltPath)
	if err != nil || !os.SameFile(bolt, g.bolt) {
		return errFolderGone
	}
	select {
	case <-g.dead:
		return fmt.Errorf("a background task of the index failed")
	default:
	}
	if bolt.Size() < g.boltSize {
		return fmt.Errorf("root.bolt shrank from %d to %d bytes", g.boltSize, bolt.Size())
	}
	g.boltSize = bolt.Size()
	if g.boltFile != nil {
		if err := checkBoltMetaOf(g.boltFile); err != nil {
			return err
		}
	} else if err := checkBoltMeta(boltPath); err != nil {
		return err
	}
	return g.checkSegmentsLocked(idx)
}

// isDead reports whether a background goroutine of the index failed.
func (g *guard) isDead() bool {
	select {
	case <-g.dead:
		return true
	default:
		return false
	}
}

// folderGone reports whether the index folder was deleted or replaced.
func (g *guard) folderGone() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	meta, err := os.Stat(filepath.Join(g.dir, "index_meta.json"))
	if err != nil || !os.SameFile(meta, g.meta) {
		return true
	}
	bolt, err := os.Stat(filepath.Join(g.dir, "store", "root.bolt"))
	return err != nil || !os.SameFile(bolt, g.bolt)
}

var errFolderGone = fmt.Errorf("the index folder was deleted or replaced")

// checkSegmentsLocked compares the live segments of idx with their files:
// a segment file is written once, so its inode and mtime never change, and
// it is exactly as long as its mapping (shorter means a SIGBUS ahead).
func (g *guard) checkSegmentsLocked(idx bleve.Index) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	live := map[string]bool{}
	for _, ss := range snap.Segments() {
		ps, ok := ss.Segment().(segment.PersistedSegment)
		if !ok {
			continue // in memory, not yet persisted
		}
		p := ps.Path()
		live[p] = true
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("segment %s is gone or unreadable", filepath.Base(p))
		}
		if d, ok := ps.(interface{ Data() []byte }); ok && fi.Size() != int64(len(d.Data())) {
			return fmt.Errorf("segment %s is %d bytes long, its mapping %d", filepath.Base(p), fi.Size(), len(d.Data()))
		}
		if old, ok := g.segs[p]; ok {
			if !os.SameFile(old, fi) || !old.ModTime().Equal(fi.ModTime()) || old.Size() != fi.Size() {
				return fmt.Errorf("segment %s was changed", filepath.Base(p))
			}
		} else {
			g.segs[p] = fi
		}
	}
	for p := range g.segs {
		if !live[p] {
			delete(g.segs, p)
		}
	}
	return nil
}

// boltMagic is bbolt's meta page magic (go.etcd.io/bbolt, internal/common).
const boltMagic = 0xED0CDAED

// checkBoltMeta reads bbolt's two meta pages with pread (not through the
// mapping) and checks their magic: a root.bolt overwritten in place fails.
func checkBoltMeta(path string) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("root.bolt is not a regular file") // its open could wait for ever
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("root.bolt cannot be read")
	}
	defer f.Close()
	return checkBoltMetaOf(f)
}

// checkBoltMetaOf is checkBoltMeta of the open root.bolt f.
func checkBoltMetaOf(f *os.File) error {
	// Page header: id u64, flags u16, count u16, overflow u32 (16 bytes);
	// then the meta: magic u32, version u32, page size u32.
	var hdr [28]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return fmt.Errorf("root.bolt is too short")
	}
	if binary.NativeEndian.Uint32(hdr[16:]) != boltMagic {
		return fmt.Errorf("root.bolt's first meta page is damaged")
	}
	ps := int64(binary.NativeEndian.Uint32(hdr[24:]))
	if ps < 512 || ps > 1<<20 {
		return fmt.Errorf("root.bolt's page size %d is not plausible", ps)
	}
	if _, err := f.ReadAt(hdr[:], ps); err != nil && err != io.EOF {
		return fmt.Errorf("root.bolt is too short")
	}
	if binary.NativeEndian.Uint32(hdr[16:]) != boltMagic {
		return fmt.Errorf("root.bolt's second meta page is damaged")
	}
	return nil
}
