package results

import "io"

// Read parses the case records of a results JSONL stream; on an error it returns the records
// before it.
func Read(r io.Reader) ([]*Record, error) {
	var out []*Record
	err := Scan(r, func(rec *Record) error {
		out = append(out, rec)
		return nil
	})
	return out, err
}

// Scan passes the case records of a results JSONL stream to fn, skipping run records.
func Scan(r io.Reader, fn func(*Record) error) error {
	return scanLines(r, Visitor{Case: func(rec *Record, _ int) error { return fn(rec) }}, "")
}
