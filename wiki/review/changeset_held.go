package review

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki/plan"
)

type approvalKey struct{}

// withApproval marks ctx as the approval of change set id: the files that
// set holds may be written in it.
func withApproval(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, approvalKey{}, id)
}

// InApproval reports whether ctx is a person's approval of a change set
// (the writes [Service.Approve] makes through [RunFunc]): a write tool run
// in it must write, never turn itself into a new change set.
func InApproval(ctx context.Context) bool { return approvalOf(ctx) != "" }

func approvalOf(ctx context.Context) string {
	id, _ := ctx.Value(approvalKey{}).(string)
	return id
}

// holding is one file a pending change set holds.
type holding struct {
	id, name string
	expires  time.Time
}

// heldFiles is the in-memory list of files pending change sets hold,
// consulted on every write to a reviewed file. It is reloaded from the
// plan book when this service saved or ended a set, or when the plans
// folder changed on disk (another process); a listing read within
// [racyWindow] of the folder's change is not trusted, since file times
// are coarse.
type heldFiles struct {
	mu       sync.Mutex
	valid    bool
	mtime    time.Time
	loadedAt time.Time
	files    map[string]holding // plan.HoldKey -> holder
	applying []string           // ids of the change sets applying
	ended    uint64             // approving.ended when loaded
}

const racyWindow = 50 * time.Millisecond

func (h *heldFiles) invalidate() {
	h.mu.Lock()
	h.valid = false
	h.mu.Unlock()
}

// holder is the [wiki.HeldFunc] the service installs in its store.
func (s *Service) holder(ctx context.Context, rel string) string {
	if !Reviewed(rel) {
		return ""
	}
	files := s.heldNow()
	if len(files) == 0 {
		return ""
	}
	hd, ok := files[plan.HoldKey(rel)]
	if !ok || !s.st.Now().Before(hd.expires) || approvalOf(ctx) == hd.id {
		return ""
	}
	return hd.name
}

func (s *Service) heldNow() map[string]holding {
	h := &s.held
	var mtime time.Time
	// A plain stat of the host path: the folder is the server's own state,
	// and this runs on every write, where os.Root's walk of the path
	// component by component would add several system calls.
	fi, err := os.Stat(filepath.Join(s.st.Dir(), filepath.FromSlash(plan.Dir)))
	if err == nil {
		mtime = fi.ModTime()
	} else if !errorsIsNotExist(err) {
		mtime = time.Now() // unknown: reload
	}
	ended := approving.ended.Load() // before the load: an approval ending meanwhile reloads next time
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.valid && mtime.Equal(h.mtime) && h.loadedAt.Sub(mtime) > racyWindow && h.ended == ended {
		return h.files
	}
	files := map[string]holding{}
	var applying []string
	if err == nil {
		list, _ := s.book.List()
		for _, p := range list {
			// A set being approved still holds its files, until the
			// approval records its outcome (or the set's expiry, should
			// the approval never finish).
			if p.Op != plan.OpChangeSet || p.Status != plan.StatusPending && p.Status != plan.StatusApplying {
				continue
			}
			expires := p.Expires
			if p.Status == plan.StatusApplying {
				applying = append(applying, p.ID)
				// An approval that is gone holds nothing (changeset_recover.go).
				if at, ok := s.staleAt(p); ok && at.Before(expires) {
					expires = at
				}
			}
			for k := range p.Holds() {
				if _, ok := files[k]; !ok {
					files[k] = holding{id: p.ID, name: p.Name(), expires: expires}
				}
			}
		}
	}
	h.valid, h.mtime, h.loadedAt, h.files, h.applying, h.ended = true, mtime, time.Now(), files, applying, ended
	return files
}

// applyingNow returns the ids of the change sets applying, as last loaded.
func (s *Service) applyingNow() []string {
	s.heldNow()
	s.held.mu.Lock()
	defer s.held.mu.Unlock()
	return append([]string(nil), s.held.applying...)
}

func errorsIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
