package store

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
)

// Code classifies an [Error] so adapters (MCP tools, the command line) can map
// it to a response without parsing messages.
type Code string

// The error codes. Every error the store returns to a caller is an *Error with
// one of these codes (possibly wrapped with %w).
const (
	// CodeInvalid: the input is malformed or breaks a rule (bad slug, path
	// outside the root, write to a protected layer). Fix the input and retry.
	CodeInvalid Code = "invalid"
	// CodeNotFound: the named page, source or file does not exist.
	CodeNotFound Code = "not_found"
	// CodeConflict: the file changed since the caller read it (base_sha256
	// mismatch) or already exists where a new one was expected.
	CodeConflict Code = "conflict"
	// CodeTooLarge: the input or the result exceeds a limit (context.md line
	// cap, argument size).
	CodeTooLarge Code = "too_large"
	// CodeRefused: a transport refused the request before any tool ran (no
	// or wrong bearer token, a token in the URL, a foreign Host or Origin, a
	// body over the size limit). Audited, never retried by the server.
	CodeRefused Code = "refused"
	// CodeCancelled: the client cancelled the call (notifications/cancelled)
	// or the server stopped it while shutting down. A write it made is
	// whole or absent.
	CodeCancelled Code = "cancelled"
	// CodeUnavailable: the wiki cannot do this now, whatever the input: it
	// is read-only (see [Store.ReadOnly]), or a service it needs (the
	// model endpoint) cannot be reached. Nothing was changed.
	CodeUnavailable Code = "unavailable"
	// CodeInternal: an I/O or programming failure. The message is safe to
	// show; the wrapped error (logged, never shown to a model) has details.
	CodeInternal Code = "internal"
)

// Error is the store's error type. Msg is written for the model or person who
// made the call: it names the problem and the next step, and never contains a
// host path. Err, when set, carries the underlying cause for logs.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Code == CodeInternal {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// ReadOnlyMessage is the whole message of every write refused because the
// wiki is read-only.
const ReadOnlyMessage = "the wiki is read-only; nothing was changed"

// errReadOnly is the error every write returns on a read-only wiki.
var errReadOnly = &Error{Code: CodeUnavailable, Msg: ReadOnlyMessage}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Internal wraps cause as a CodeInternal error whose public message is msg,
// followed by the reason in plain words when cause is one a person can act
// on (a full or read-only disk, a permission).
func Internal(msg string, cause error) *Error {
	if why := ioReason(cause); why != "" && !strings.HasSuffix(msg, why) {
		msg += ": " + why
	}
	return &Error{Code: CodeInternal, Msg: msg, Err: cause}
}

// ioReasonOr is ioReason(err), or "the disk refused the write".
func ioReasonOr(err error) string {
	if r := ioReason(err); r != "" {
		return r
	}
	return "the disk refused the write"
}

// ioReason names the I/O failures a person can fix, without host paths.
func ioReason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.ENOSPC):
		return "the disk is full"
	case errors.Is(err, syscall.EDQUOT):
		return "the disk quota is used up"
	case errors.Is(err, syscall.EROFS):
		return "the disk is read-only"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.EIO):
		return "the disk reported an I/O error"
	}
	return ""
}

// CodeOf returns the code of the first *Error in err's chain, CodeInternal for
// any other non-nil error, and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var we *Error
	if errors.As(err, &we) {
		return we.Code
	}
	return CodeInternal
}

// PublicMessage returns the part of err that may be shown to a model or a
// person: the Msg of the first *Error in the chain, or a generic message for
// errors that did not come from the store (which may carry host paths).
func PublicMessage(err error) string {
	var we *Error
	if errors.As(err, &we) {
		return we.Msg
	}
	return "internal error (details are in the server log)"
}
