package git

// syncState is what sync keeps between runs (sync.go).
type syncState struct{}
