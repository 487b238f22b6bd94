package store

import (
	"crypto/sha256"
	"encoding/hex"
)

// SHA256Hex returns the lowercase hex sha256 of b: the form every sha256 in
// llmwiki's API and audit log takes.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
