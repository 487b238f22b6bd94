package search

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/llmwiki/llmwiki/wiki"
)

// The index on a read-only wiki ([wiki.Store.ReadOnly]).
//
// The index keeps its state in a home: normally the wiki itself
// (.llmwiki/search). On a read-only wiki:
//
//   - an index already there whose manifest matches it is opened read-only
//     in place (scorch's read_only: no persister, no merger, nothing
//     written). Files changed since it was built, or changed by an outside
//     edit while the server runs (a read-only view of a folder someone else
//     writes), are indexed in memory on top of it: scorch introduces the
//     batches and never persists them, and the manifest is kept in memory.
//   - when there is none (or it is unreadable, of another version, held by a
//     writer, or must be rebuilt), the index is built in a home under the
//     user's cache folder, os.UserCacheDir()/llmwiki/<16 hex of the sha256
//     of the wiki's path>, laid out like the wiki's .llmwiki/search, where
//     the next start (of a server or of `llmwiki search`) finds it again and
//     only reconciles it.
//
// The index's status says which (Status.Reason, shown by load_project).

// home is where the index keeps its state.
type home struct {
	root *os.Root
	dir  string // host path
	// st is set for the wiki's own home: its state goes through the
	// store's locked, atomic writer.
	st *wiki.Store
	// readOnly: the wiki's home on a read-only wiki (never written).
	readOnly bool
	// cacheName names the cache home in messages ("llmwiki/<hash>").
	cacheName string
}

// wikiHome is the wiki's own home.
func wikiHome(st *wiki.Store) *home {
	return &home{root: st.Root(), dir: st.Dir(), st: st, readOnly: st.ReadOnly()}
}

// cacheHome opens (creating it when missing) the home of wikiDir's index
// under the user's cache folder.
func cacheHome(wikiDir string) (*home, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return nil, errors.New("the wiki is read-only and the user has no cache folder to keep its index in (set XDG_CACHE_HOME, or HOME, to a writable folder)")
	}
	sum := sha256.Sum256([]byte(wikiDir))
	name := "llmwiki/" + hex.EncodeToString(sum[:8])
	dir := filepath.Join(base, filepath.FromSlash(name))
	fail := func(err error) (*home, error) {
		return nil, fmt.Errorf("the wiki is read-only and its index cannot be kept in the user's cache folder (%s): %s", name, shortErr(err))
	}
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(StateDir)), 0o700); err != nil {
		return fail(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fail(err)
	}
	return &home{root: root, dir: dir, cacheName: name}, nil
}

// cache reports whether h is a home under the user's cache folder.
func (h *home) cache() bool { return h.st == nil }

// read reads a state file of the home; a missing one is (nil, false, nil).
func (h *home) read(rel string) ([]byte, bool, error) {
	if h.st != nil {
		return h.st.ReadState(rel)
	}
	data, err := h.root.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// write replaces a state file of the home atomically.
func (h *home) write(rel string, data []byte) error {
	if h.st != nil {
		return h.st.WriteState(rel, data)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Dir(rel) + "/." + path.Base(rel) + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := h.root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = h.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = h.root.Remove(tmp)
	}
	return err
}

// close releases a cache home's root (the wiki's belongs to the store).
func (h *home) close() {
	if h != nil && h.cache() {
		_ = h.root.Close()
	}
}

// where says, for the status, where the index is when the wiki is
// read-only; "" when it is in the wiki as usual.
func (x *Index) where() string {
	h := x.home.Load()
	switch {
	case h.cache():
		return "the wiki is read-only, so the search index is kept in the user's cache folder (" + h.cacheName + ")"
	case h.readOnly:
		return "the wiki is read-only: its search index is used read-only, and files changed since it was built are indexed in memory"
	}
	return ""
}

// toCacheLocked moves the index's home to the user's cache folder (the
// wiki is read-only and a new index must be made). Call with opMu held.
func (x *Index) toCacheLocked() error {
	if x.home.Load().cache() {
		return nil
	}
	h, err := cacheHome(x.st.Dir())
	if err != nil {
		return err
	}
	x.home.Store(h)
	return nil
}

// openInPlaceLocked opens the wiki's own index read-only, on a read-only
// wiki, when it is sound, of this version and matched by its manifest. It
// reports whether it did; the caller then builds one in the cache home.
// Call with opMu held.
func (x *Index) openInPlaceLocked() bool {
	h := x.home.Load()
	if fi, err := h.root.Lstat(StateDir); err != nil || !fi.IsDir() {
		return false
	}
	cur := x.currentDir()
	idx, g, err := openGuarded(x.abs(cur), x.onBackgroundError, true)
	if err != nil {
		if !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) && !errors.Is(err, bleve.ErrorIndexMetaMissing) {
			x.log.Info("the read-only wiki's search index cannot be opened; one is built in the user's cache folder", "err", err)
		}
		return false
	}
	id, ver := internal(idx, internalID), internal(idx, internalVer)
	man, ok := x.loadManifest()
	if ver != schemaVersion || id == "" || !ok || man.IndexID != id {
		_ = x.closeIndex(idx, g)
		return false
	}
	x.man = man
	x.setIndex(idx, cur, false, g)
	return true
}
