package forkserver

import (
	"bytes"
	"strings"
)

// capped keeps the first max bytes written and discards the rest, as internal/proc does.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := max(c.max-c.buf.Len(), 0)
	c.buf.Write(p[:min(room, len(p))])
	c.dropped = c.dropped || len(p) > room
	return len(p), nil
}

// stderrInError and tail match internal/proc's error text.
const stderrInError = 2000

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…(truncated)… " + s[len(s)-n:]
}
