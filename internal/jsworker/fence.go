package jsworker

import (
	"bytes"
	"io"
	"sync"
)

// fenced reads one of a worker's output streams and hands each call its part: the bytes before
// the next fence go to the sink set for the call, and the fence itself is signalled on fences.
// Bytes that come while no call has a sink (a timer the handler left printing after its call)
// mark the stream dirty: the worker is not reused.
type fenced struct {
	fence  []byte
	fences chan struct{} // one value per fence seen
	eof    chan struct{} // closed when the stream ends

	mu    sync.Mutex
	sink  io.Writer
	dirty bool
}

func newFenced(fence []byte) *fenced {
	return &fenced{fence: fence, fences: make(chan struct{}, 4), eof: make(chan struct{})}
}

// setSink directs the stream's next bytes (up to the next fence) to w.
func (f *fenced) setSink(w io.Writer) {
	f.mu.Lock()
	f.sink = w
	f.mu.Unlock()
}

func (f *fenced) isDirty() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dirty
}

func (f *fenced) emit(p []byte) {
	if len(p) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sink == nil {
		f.dirty = true
		return
	}
	_, _ = f.sink.Write(p)
}

// endCall closes the current call's part: later bytes have no sink until setSink.
func (f *fenced) endCall() {
	f.mu.Lock()
	f.sink = nil
	select {
	case f.fences <- struct{}{}:
	default: // fences nobody waits for: the output is not the worker's protocol any more
		f.dirty = true
	}
	f.mu.Unlock()
}

// run copies r until it ends. A fence split across reads is found: the last len(fence)-1 bytes
// are held back until the next read shows whether they begin one.
func (f *fenced) run(r io.Reader) {
	defer close(f.eof)
	buf := make([]byte, 64<<10)
	var held []byte
	for {
		n, err := r.Read(buf)
		data := append(held, buf[:n]...)
		for {
			i := bytes.Index(data, f.fence)
			if i < 0 {
				break
			}
			f.emit(data[:i])
			f.endCall()
			data = data[i+len(f.fence):]
		}
		keep := min(len(data), len(f.fence)-1)
		if err != nil {
			keep = 0
		}
		f.emit(data[:len(data)-keep])
		held = append([]byte(nil), data[len(data)-keep:]...)
		if err != nil {
			return
		}
	}
}
