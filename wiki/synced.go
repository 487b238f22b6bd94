package wiki

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// ApplySynced brings the wiki's caches and derived state in step with
// files another engine changed on disk (a sync's git checkout, see
// wiki/git), as the store's own commit would: the sources record learns
// the sources that arrived (so they are not reported as changed outside
// llmwiki), the page catalogue the pages, and every derived state (search
// index, link graph) the changes; records are added to call's writes. It
// never commits to git. Call it with the project lock held ([Store.Locked]),
// after the files are on disk.
func (s *Store) ApplySynced(ctx context.Context, call *store.Call, records []store.WriteRecord, changes []store.Change) {
	if len(changes) == 0 {
		return
	}
	s.recordSourceWrites(call, changes)
	s.noteCommitted(changes)
	s.Store.ApplyOutside(ctx, call, records, changes)
}
