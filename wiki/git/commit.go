package git

// commitState is what the committer keeps between writes (commit.go).
type commitState struct{}
