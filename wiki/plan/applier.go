package plan

import "time"

// Applier is who applies a plan while its status is [StatusApplying]: the
// applying process's store session ([store.Store.SessionID]), its pid, and
// when it claimed the plan. A plan still applying when its applier is gone
// (the process died) is recovered by whoever finds it (see wiki/review).
type Applier struct {
	Session string    `json:"session"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}
