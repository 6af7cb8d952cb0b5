package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// progressFlush is how long a progress line may wait in the buffer.
const progressFlush = 100 * time.Millisecond

// progressWriter buffers progress lines and flushes them at least every progressFlush: one
// write per case was a system call per case (100,000 of them in a large run), and a person
// or a CI log cannot tell 100 ms apart.
type progressWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
	once sync.Once
	// closed is set (under mu) by Close: from then on writes are flushed at once.
	closed bool
}

func newProgressWriter(w io.Writer) *progressWriter {
	p := &progressWriter{w: bufio.NewWriterSize(w, 32<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progressWriter) loop() {
	defer close(p.done)
	t := time.NewTicker(progressFlush)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.flush()
		case <-p.stop:
			return
		}
	}
}

// Write buffers p; callers may write from several goroutines.
func (p *progressWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, err := p.w.Write(b)
	if err == nil && p.closed {
		err = p.w.Flush()
	}
	return n, err
}

func (p *progressWriter) flush() {
	p.mu.Lock()
	_ = p.w.Flush()
	p.mu.Unlock()
}

// Close stops the timer and writes out what is buffered. Later writes go straight through.
func (p *progressWriter) Close() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.mu.Lock()
		p.closed = true
		_ = p.w.Flush()
		p.mu.Unlock()
	})
}
