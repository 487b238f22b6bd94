package review

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Write is one audited write in the review queue.
type Write struct {
	// ID is the audit line's id.
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Client  string    `json:"client,omitempty"`
	Session string    `json:"session"`
	Tool    string    `json:"tool"`
	// Files are the reviewed files the call wrote (pages/, context.md).
	Files []store.WriteRecord `json:"files"`
	// Status is "unreviewed", "accepted" or "reverted".
	Status string `json:"status"`
}

// DefaultQueueLimit is the page size of [Service.Queue] when limit is 0.
const DefaultQueueLimit = 50

// Queue returns the writes awaiting review, newest first, at most limit
// from cursor (an opaque position, "" for the start); next is "" at the
// end.
func (s *Service) Queue(limit int, cursor string) (ws []Write, next string, total int, err error) {
	if limit <= 0 {
		limit = DefaultQueueLimit
	}
	err = s.withIndex(func(all []queued, at map[string]int, decs map[string]Decision) error {
		start := 0
		if cursor != "" {
			i, ok := at[cursor]
			if !ok {
				return store.Errorf(store.CodeInvalid, "cursor is not one the review queue returned: pass next_cursor as given, or omit cursor to start from the newest write")
			}
			start = i
		}
		for i := range all {
			if _, done := decs[all[i].w.ID]; done {
				continue
			}
			total++
			if i < start {
				continue
			}
			if len(ws) == limit {
				if next == "" {
					next = all[i].w.ID
				}
				continue
			}
			ws = append(ws, all[i].w)
		}
		return nil
	})
	if err != nil {
		return nil, "", 0, err
	}
	return ws, next, total, nil
}

// lookup returns the marked write id with its status.
func (s *Service) lookup(id string) (queued, error) {
	var out queued
	err := s.withIndex(func(all []queued, at map[string]int, decs map[string]Decision) error {
		i, ok := at[id]
		if !ok {
			return notQueued(id)
		}
		out = all[i]
		if d, ok := decs[id]; ok {
			out.w.Status = d.Decision
		}
		return nil
	})
	return out, err
}

// nextWrite is the unreviewed queued write, other than id, that changed
// rel from the version sha (the one write id left), or "".
func (s *Service) nextWrite(rel, sha, id string) string {
	var next string
	_ = s.withIndex(func(all []queued, _ map[string]int, decs map[string]Decision) error {
		for _, q := range all {
			if _, decided := decs[q.w.ID]; decided || q.w.ID == id {
				continue
			}
			for _, f := range q.w.Files {
				if f.Path == rel && f.Before == sha {
					next = q.w.ID
					return nil
				}
			}
		}
		return nil
	})
	return next
}

func notQueued(id string) error {
	return store.Errorf(store.CodeNotFound, "write %s is not in the review queue (only writes to pages/ and context.md made in review mode after are); `llmwiki review` lists the writes awaiting review", id)
}

func alreadyDecided(d Decision) error {
	return store.Errorf(store.CodeConflict, "write %s was already %s (by %s, %s); nothing to do: `llmwiki review` lists the writes still awaiting review", d.ID, d.Decision, d.Reviewer, d.Time.Format(time.RFC3339))
}

// Accept marks the writes ids as accepted (nothing on disk changes).
func (s *Service) Accept(ctx context.Context, ids []string, reviewer string) error {
	if err := checkReviewer(reviewer); err != nil {
		return err
	}
	if len(ids) == 0 {
		return store.Errorf(store.CodeInvalid, "name the writes to accept (their ids, as the review queue lists them)")
	}
	err := s.withIndex(func(all []queued, at map[string]int, decs map[string]Decision) error {
		for _, id := range ids {
			if d, ok := decs[id]; ok {
				return alreadyDecided(d)
			}
			if _, ok := at[id]; !ok {
				return notQueued(id)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = s.decide(ctx, "review:accept", ids, DecisionAccepted, reviewer, true)
	return err
}

// AcceptAll accepts every write in the queue and returns how many; with
// through (a write's id) only that write and those older than it, so a
// person who saw the queue up to through accepts nothing queued since.
func (s *Service) AcceptAll(ctx context.Context, reviewer, through string) (int, error) {
	if err := checkReviewer(reviewer); err != nil {
		return 0, err
	}
	var ids []string
	err := s.withIndex(func(all []queued, at map[string]int, decs map[string]Decision) error {
		from := 0
		if through != "" {
			i, ok := at[through]
			if !ok {
				return notQueued(through)
			}
			from = i
		}
		for _, q := range all[from:] {
			if _, done := decs[q.w.ID]; !done {
				ids = append(ids, q.w.ID)
			}
		}
		return nil
	})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return s.decide(ctx, "review:accept", ids, DecisionAccepted, reviewer, false)
}

// decide appends the decision on ids to DecisionsFile under the project
// lock, checking again there that none was decided meanwhile (strict: a
// conflict; otherwise those are skipped), and records it in the ctx's
// call, or in an audit line of its own as tool. It returns how many were
// recorded.
func (s *Service) decide(ctx context.Context, tool string, ids []string, decision, reviewer string, strict bool) (n int, err error) {
	call := store.CallFrom(ctx)
	if call == nil {
		call = store.NewCall(tool, s.st.SessionID(), map[string]any{"writes": ids, "reviewer": reviewer})
		ctx = store.WithCall(ctx, call)
		defer func() {
			if aerr := s.st.Audit(call, err); aerr != nil && err == nil {
				err = aerr
			}
		}()
	}
	var done []string
	err = s.st.UpdateState(ctx, DecisionsFile, func(old []byte, _ bool) ([]byte, error) {
		decided := map[string]Decision{}
		for _, l := range bytes.Split(old, []byte("\n")) {
			var d Decision
			if json.Unmarshal(l, &d) == nil && d.ID != "" {
				if _, ok := decided[d.ID]; !ok {
					decided[d.ID] = d
				}
			}
		}
		out := old
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n') // a torn last line stays on its own
		}
		now := s.st.Now()
		for _, id := range ids {
			if d, ok := decided[id]; ok {
				if strict {
					return nil, alreadyDecided(d)
				}
				continue
			}
			line, err := json.Marshal(Decision{ID: id, Decision: decision, Reviewer: reviewer, Time: now})
			if err != nil {
				return nil, store.Internal("encode a review decision", err)
			}
			out = append(append(out, line...), '\n')
			decided[id] = Decision{}
			done = append(done, id)
		}
		if len(done) == 0 {
			return nil, nil
		}
		return out, nil
	})
	if err != nil {
		return 0, err
	}
	call.SetExtra("decision", decision)
	call.SetExtra("writes", done)
	call.SetExtra("reviewer", reviewer)
	return len(done), nil
}

// RevertResult says what a revert restored.
type RevertResult struct {
	ID    string   `json:"id"`
	Files []string `json:"files"`
}

// Revert restores, in one audited write, the version of every file the
// write id replaced (a file it created is deleted, one it deleted is put
// back), and marks it reverted. A file changed since the write is a
// conflict naming it, and nothing is restored.
func (s *Service) Revert(ctx context.Context, id, reviewer string) (res RevertResult, err error) {
	if err := checkReviewer(reviewer); err != nil {
		return res, err
	}
	q, err := s.lookup(id)
	if err != nil {
		return res, err
	}
	if q.w.Status != StatusUnreviewed {
		return res, store.Errorf(store.CodeConflict, "write %s was already %s; to undo it now, restore an older version from the page's history (list_snapshots, restore_snapshot)", id, q.w.Status)
	}
	// The versions before, read outside the lock: snapshots never change.
	before := map[string][]byte{}
	for _, f := range q.w.Files {
		if f.Before == "" {
			continue
		}
		data, ok := s.version(f.Path, f.Before)
		if !ok {
			return res, store.Errorf(store.CodeNotFound, "the version of %s before write %s is no longer stored (the snapshot retention pruned it); nothing was reverted: restore an older version by hand from its history", f.Path, id)
		}
		before[f.Path] = data
	}
	call := store.CallFrom(ctx)
	if call == nil {
		call = store.NewCall("review:revert", s.st.SessionID(), map[string]any{"write": id, "reviewer": reviewer})
		ctx = store.WithCall(ctx, call)
		defer func() {
			if aerr := s.st.Audit(call, err); aerr != nil && err == nil {
				err = aerr
			}
		}()
	}
	var files []string
	err = s.st.Update(ctx, func(tx *store.Tx) error {
		for _, f := range q.w.Files {
			cur, exists, err := tx.Read(f.Path)
			if err != nil {
				return err
			}
			if (f.After == "") == exists || (exists && store.SHA256Hex(cur) != f.After) {
				if later := s.nextWrite(f.Path, f.After, id); later != "" {
					return store.Errorf(store.CodeConflict, "%s changed since write %s: write %s changed it next and awaits review; revert that one first (nothing was reverted)", f.Path, id, later)
				}
				return store.Errorf(store.CodeConflict, "%s changed since write %s; its history has both versions: restore by hand (nothing was reverted)", f.Path, id)
			}
		}
		// Deletions first, so a move's old name is free again.
		for _, f := range q.w.Files {
			if f.Before == "" {
				if err := tx.Delete(f.Path, f.After); err != nil {
					return err
				}
				files = append(files, f.Path)
			}
		}
		for _, f := range q.w.Files {
			switch {
			case f.Before == "":
				continue
			case f.After == "":
				err = tx.Create(f.Path, before[f.Path])
			default:
				err = tx.Replace(f.Path, before[f.Path], f.After)
			}
			if err != nil {
				return err
			}
			files = append(files, f.Path)
		}
		_, err := s.st.AppendLogTx(tx, revertLog(id, reviewer, q.w.Files))
		return err
	})
	if err != nil {
		return res, err
	}
	// The files are restored whatever happens next, so a failure to
	// record the decision is a warning, not the call's error.
	if _, derr := s.decide(ctx, "review:revert", []string{id}, DecisionReverted, reviewer, false); derr != nil {
		call.AddWarning("write " + id + " was reverted but the decision could not be recorded: " + store.PublicMessage(derr))
	}
	call.SetExtra("decision", DecisionReverted)
	call.SetExtra("writes", []string{id})
	call.SetExtra("reviewer", reviewer)
	return RevertResult{ID: id, Files: files}, nil
}

// revertLog is the log.md entry of a revert.
func revertLog(id, reviewer string, files []store.WriteRecord) wiki.LogInput {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	title := fmt.Sprintf("write %s reverted: %s (%s)", id, strings.Join(paths, ", "), reviewer)
	var details string
	if len(title) > wiki.MaxLogTitle {
		title = fmt.Sprintf("write %s reverted: %d files (%s)", id, len(files), reviewer)
		details = "- " + strings.Join(paths, "\n- ")
	}
	return wiki.LogInput{Op: "review", Title: title, Details: details}
}

// Count returns what awaits a person.
func (s *Service) Count() (Counts, error) {
	var c Counts
	if p, err := s.Pending(); err == nil {
		c.Pending = len(p)
	}
	_, _, n, err := s.Queue(1, "")
	if err != nil {
		return c, err
	}
	c.Unreviewed = n
	return c, nil
}

// Counts is what awaits a person.
type Counts struct {
	Pending    int `json:"pending"`
	Unreviewed int `json:"unreviewed"`
}
