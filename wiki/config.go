package wiki

import (
	"github.com/llmwiki/llmwiki/wiki/store"
	"os"
	"sync"
	"time"
)

// DefaultContextMaxLines is context.md's line cap when schema.md sets none.
const DefaultContextMaxLines = 400

// Config is the project's settings, read from schema.md's frontmatter (the
// person owns it; no tool writes it). Unknown keys are kept in Raw for other
// parts of llmwiki (lint reads its own keys from there).
type Config struct {
	// ContextMaxLines is context.md's line cap (context_max_lines).
	ContextMaxLines int
	// AutoIndex regenerates index.md in every write that changes the set of
	// pages or their title, summary or tags (index: auto, the default).
	AutoIndex bool
	// Retention is how long snapshots are kept (snapshot_keep_days,
	// snapshot_keep_last); the default keeps them all. See
	// [Store.PruneSnapshots].
	Retention Retention
	// Raw is schema.md's whole frontmatter.
	Raw map[string]any
	// Err is why schema.md's frontmatter could not be read, if it could not;
	// the defaults are in force then.
	Err string
}

type configCache struct {
	mu    sync.Mutex
	mtime time.Time
	size  int64
	cfg   Config
	ok    bool
}

// Config returns the project's settings. It re-reads schema.md when its size
// or modification time changed.
func (s *Store) Config() Config {
	cc := &s.cfgCache
	cc.mu.Lock()
	defer cc.mu.Unlock()
	fi, err := s.root.Stat("schema.md")
	if err == nil && cc.ok && fi.ModTime().Equal(cc.mtime) && fi.Size() == cc.size {
		return cc.cfg
	}
	cfg := Config{ContextMaxLines: DefaultContextMaxLines, AutoIndex: true, Raw: map[string]any{}}
	if err != nil {
		if !os.IsNotExist(err) {
			cfg.Err = "schema.md cannot be read"
		}
		return cfg
	}
	data, _, rerr := s.ReadRaw("schema.md")
	if rerr == nil {
		d, perr := ParseDoc("schema.md", data)
		if perr != nil {
			cfg.Err = store.PublicMessage(perr)
		} else if d.Meta != nil {
			cfg.Raw = d.Meta
			if n, ok := toInt(d.Meta["context_max_lines"]); ok && n > 0 {
				cfg.ContextMaxLines = n
			}
			if MetaString(d.Meta, "index") == "manual" {
				cfg.AutoIndex = false
			}
			if n, ok := toInt(d.Meta["snapshot_keep_days"]); ok && n > 0 {
				cfg.Retention.KeepDays = n
			}
			if n, ok := toInt(d.Meta["snapshot_keep_last"]); ok && n > 0 {
				cfg.Retention.KeepLast = n
			}
		}
	}
	cc.cfg, cc.mtime, cc.size, cc.ok = cfg, fi.ModTime(), fi.Size(), true
	return cfg
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	case uint64:
		return int(x), true
	}
	return 0, false
}
