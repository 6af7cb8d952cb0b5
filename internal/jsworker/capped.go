package jsworker

import (
	"bytes"
	"strings"
	"sync"
)

// capped keeps the first max bytes written and discards the rest, as internal/proc does. A
// stream's reader writes while the call reads it at the end, hence the lock.
type capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := max(c.max-c.buf.Len(), 0)
	c.buf.Write(p[:min(room, len(p))])
	c.dropped = c.dropped || len(p) > room
	return len(p), nil
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
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
