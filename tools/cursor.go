package tools

import (
	"strconv"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// Lists page with limit and an opaque cursor (docs/design.md, Wire
// vocabulary). A list paged by position uses the position of its next item
// as the cursor; callers pass back next_cursor as given.

// NextCursor is the cursor continuing at item next; "" (no next page) for 0.
func NextCursor(next int) string {
	if next <= 0 {
		return ""
	}
	return strconv.Itoa(next)
}

// CursorOffset is the position a cursor from [NextCursor] continues at; 0
// for no cursor.
func CursorOffset(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(cursor)
	if err != nil || n < 0 || strconv.Itoa(n) != cursor {
		return 0, store.Errorf(store.CodeInvalid, "cursor is not one this tool returned: pass next_cursor as given, or omit cursor to start from the first page")
	}
	return n, nil
}
