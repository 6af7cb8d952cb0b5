package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentv/action/internal/safefile"
)

// Scan parses a results JSONL stream one record at a time, calling fn with each, so a large
// results file is never held whole. Blank lines are skipped; a malformed line stops the scan
// with an error naming its line number, after fn has seen every record before it. fn may keep
// the record; an error from fn stops the scan and is returned.
func Scan(r io.Reader, fn func(*Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 256<<20)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		rec := new(Record)
		if err := json.Unmarshal(b, rec); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return sc.Err()
}

// ScanFile is Scan over a file; errors name the file. A FIFO or device is refused rather than
// waited on; the file is streamed, so its size is not capped.
func ScanFile(path string, fn func(*Record) error) error {
	f, err := safefile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := Scan(f, fn); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
