package app

import (
	"context"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// syncCheckEvery is how often the background sync reads schema.md's
// git and sync_interval_minutes again, so a change takes effect without a
// restart.
const syncCheckEvery = time.Minute

// syncLoop is serve's background sync: under git: sync with
// sync_interval_minutes set, it syncs (and pushes) every interval, never
// committing outside edits and never overlapping itself; a failure is
// logged and shown by status (git.Status.SyncError), and the next round
// retries. It ends when ctx does (Stop): the git command running then is
// killed, which leaves the repository as git left it.
func (a *App) syncLoop(ctx context.Context) {
	t := time.NewTicker(syncCheckEvery)
	defer t.Stop()
	last := time.Now() // the first round waits one interval: a starting server answers first
	repo := a.Git
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cfg := a.Store.Settings()
		if cfg.Git != wiki.GitSync || cfg.SyncInterval <= 0 || a.Store.ReadOnly() || time.Since(last) < cfg.SyncInterval {
			continue
		}
		last = time.Now()
		if repo == nil {
			r, err := git.Open(ctx, a.Store)
			if err != nil {
				a.Log.Warn("background sync skipped", "err", store.PublicMessage(err))
				continue
			}
			repo = r
		}
		res, err := repo.Sync(ctx, git.SyncOptions{Push: true, Tool: "sync", Background: true})
		if err != nil {
			if ctx.Err() == nil {
				a.Log.Warn("background sync failed; the next round retries", "err", store.PublicMessage(err))
			}
			continue
		}
		if res.Fetched > 0 || res.Pushed > 0 || len(res.Conflicts) > 0 {
			a.Log.Info("synced with the remote", "remote", res.Remote, "fetched", res.Fetched, "replayed", res.Replayed, "pushed", res.Pushed, "conflicts", len(res.Conflicts))
		}
	}
}
