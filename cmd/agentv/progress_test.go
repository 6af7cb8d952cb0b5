package main

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the flushing goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressWriterFlushes(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := newProgressWriter(&out)
	if _, err := p.Write([]byte("[1] PASS\n")); err != nil {
		t.Fatal(err)
	}
	// Buffered lines reach the output without Close, within a flush period.
	deadline := time.Now().Add(10 * time.Second)
	for out.String() == "" {
		if time.Now().After(deadline) {
			t.Fatal("progress line never flushed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, _ = p.Write([]byte("[2] FAIL\n"))
	p.Close()
	if got, want := out.String(), "[1] PASS\n[2] FAIL\n"; got != want {
		t.Fatalf("after Close: %q, want %q", got, want)
	}
	// Writes after Close go straight through.
	_, _ = p.Write([]byte("late\n"))
	if got := out.String(); got != "[1] PASS\n[2] FAIL\nlate\n" {
		t.Fatalf("write after Close not flushed: %q", got)
	}
	p.Close() // idempotent
}
