package providers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSONLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		out     string
		maxLine int
		added   []string
		skipped int
		err     bool
	}{
		{"events, blanks and a banner", "warning: x\n\n  {\"a\":1}  \r\n{\"b\":2}\n", 1 << 10, []string{`{"a":1}`, `{"b":2}`}, 1, false},
		{"not JSON", "{oops\n[1]\n{\"c\":3}", 1 << 10, []string{`{"c":3}`}, 2, false},
		{"nothing", "", 1 << 10, nil, 0, false},
		{"a line past the limit stops the reading", "{\"a\":1}\n{\"long\":\"" + strings.Repeat("x", 70<<10) + "\"}\n{\"b\":2}\n", 66 << 10, []string{`{"a":1}`}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var added []string
			skipped, err := jsonLines([]byte(tt.out), tt.maxLine, func(line []byte) bool {
				if !json.Valid(line) {
					return false
				}
				added = append(added, string(line))
				return true
			})
			if diff := cmp.Diff(tt.added, added); diff != "" {
				t.Errorf("added (-want +got):\n%s", diff)
			}
			if skipped != tt.skipped || (err != nil) != tt.err {
				t.Errorf("skipped %d, err %v; want %d, error %v", skipped, err, tt.skipped, tt.err)
			}
		})
	}
}
