package wiki

import (
	"bytes"
	"context"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// policy is the wiki's rules, installed in its store at Open: the store
// calls them on every write, for every tool (see [store.Policy]).
func (s *Store) policy() store.Policy {
	return store.Policy{
		CleanPath:      CleanPath,
		Check:          checkLayer,
		ReplaceMissing: replaceMissing,
		CheckReplace:   checkReplace,
		CheckNewName:   s.checkNewPage,
		Snapshotted:    snapshotted,
		BeforeCommit:   s.beforeCommit,
		Committed:      s.committed,
	}
}

// checkLayer enforces the layer rules: schema.md is the person's, nothing
// under sources/ is rewritten or deleted, research notes only grow.
func checkLayer(rel string, op store.Op) error {
	switch LayerOf(rel) {
	case LayerSchema:
		return store.Errorf(store.CodeInvalid, "schema.md belongs to the person who owns the wiki; no tool writes it")
	case LayerSources:
		if op != store.OpCreate {
			return store.Errorf(store.CodeInvalid, "%s is a raw source: sources are never rewritten, appended to or deleted (save a new file instead)", rel)
		}
	case LayerResearch:
		if op != store.OpCreate && op != store.OpAppend {
			return store.Errorf(store.CodeInvalid, "%s is a research note: it only grows by appending (research_save)", rel)
		}
	case LayerPages:
		if !strings.HasSuffix(strings.ToLower(rel), ".md") {
			return store.Errorf(store.CodeInvalid, "%s: pages are markdown files ending in .md", rel)
		}
	case LayerContext, LayerIndex, LayerGuidelines:
		if op == store.OpDelete || op == store.OpAppend {
			return store.Errorf(store.CodeInvalid, "%s can only be replaced as a whole", rel)
		}
	case LayerLog:
		if op != store.OpAppend {
			return store.Errorf(store.CodeInvalid, "log.md is append-only: existing entries are never rewritten")
		}
	case LayerState:
		return store.Errorf(store.CodeInvalid, "%s is the server's own state; tools do not write it", rel)
	default:
		return store.Errorf(store.CodeInvalid, "%s is outside the wiki layout; pages go under pages/, raw documents under sources/", rel)
	}
	return nil
}

// snapshotted reports whether replaced versions of rel are kept as snapshots.
// index.md is derived from the pages (rebuild_index regenerates it), and an
// append keeps every old byte as a prefix, so neither needs one.
func snapshotted(rel string, op store.Op) bool {
	if op == store.OpAppend || op == store.OpCreate {
		return false
	}
	return LayerOf(rel) != LayerIndex
}

// replaceMissing reports whether rel may be replaced when it does not
// exist: the files the wiki writes whole (index.md, context.md,
// guidelines.md).
func replaceMissing(rel string) bool {
	l := LayerOf(rel)
	return l == LayerIndex || l == LayerContext || l == LayerGuidelines
}

// checkReplace refuses new content for an existing file that drops what
// belongs to the person: guidelines.md's "## My Rules".
func checkReplace(rel string, old, new []byte) error {
	if LayerOf(rel) == LayerGuidelines {
		return checkMyRulesKept(old, new)
	}
	return nil
}

// checkMyRulesKept refuses a new guidelines.md whose "## My Rules" section
// differs from the old one's.
func checkMyRulesKept(old, new []byte) error {
	o, _ := sectionBytes(old, "My Rules")
	n, _ := sectionBytes(new, "My Rules")
	if !bytes.Equal(o, n) {
		return store.Errorf(store.CodeInvalid, "guidelines.md: the \"## My Rules\" section belongs to the person and must stay byte-identical")
	}
	return nil
}

// checkNewPage refuses a new page with the same identity key ([PageKey])
// as another page, on disk or staged in tx (except pages tx deletes).
func (s *Store) checkNewPage(tx *store.Tx, rel string) error {
	if LayerOf(rel) == LayerPages {
		key := PageKey(rel)
		for _, p := range tx.Staged() {
			if p != rel && !tx.Deleted(p) && LayerOf(p) == LayerPages && PageKey(p) == key {
				return store.Errorf(store.CodeConflict, "%s and %s would be one page (names differing only by case, separators or accents are the same page)", rel, p)
			}
		}
		existing, ok, err := s.pageByKey(key)
		if err != nil {
			return err
		}
		var pages []PageInfo
		if ok {
			pages = []PageInfo{existing}
		}
		for _, p := range pages {
			if p.Path == rel || PageKey(p.Path) != key {
				continue
			}
			if tx.Deleted(p.Path) {
				continue
			}
			return store.Errorf(store.CodeConflict, "page %s already exists under the name %s (names differing only by case, separators or accents are the same page); update it there", rel, p.Path)
		}
	}
	return nil
}

// committed runs after each commit, under the project lock: the snapshot
// retention when the commit made snapshots, then the sources record and
// the catalogue learn the files written.
func (s *Store) committed(ctx context.Context, call *store.Call, changes []store.Change, snaps []string) {
	if len(snaps) > 0 {
		s.autoPrune(call)
	}
	if len(changes) > 0 {
		s.recordSourceWrites(call, changes)
		s.noteCommitted(changes)
		s.noteCommit(ctx, call, changes)
	}
}
