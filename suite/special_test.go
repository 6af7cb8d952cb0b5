//go:build unix

package suite

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/internal/safefile"
)

// Files the loader reads may be FIFOs or devices (by mistake, or planted by a script): each is
// refused with a message naming it, and none blocks the load. A FIFO no one writes to used to
// hang the loader in open(2) for the config file and the JSONL sidecar.
func TestSpecialFilesAreRefused(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", safefile.LimitContent+1)
	tests := []struct {
		name    string
		files   map[string]string
		fifos   []string
		links   map[string]string // name → target
		path    string
		wantErr []string // substrings of one error diagnostic each
		wantWrn []string // substrings of one warning each
		cases   int
	}{
		{
			name:    "fifo config file",
			files:   map[string]string{"eval.yaml": "evalcases:\n  - id: a\n    input: hi\n"},
			fifos:   []string{".agentv.yaml"},
			path:    "eval.yaml",
			wantWrn: []string{"config file ignored", ".agentv.yaml is a named pipe (FIFO), not a regular file"},
			cases:   1,
		},
		{
			name:    "fifo JSONL sidecar",
			files:   map[string]string{"eval.jsonl": `{"id":"a","input":"hi"}` + "\n"},
			fifos:   []string{"eval.yaml"},
			path:    "eval.jsonl",
			wantErr: []string{"could not read the JSONL sidecar", "named pipe (FIFO)"},
			cases:   1,
		},
		{
			name:    "fifo eval file",
			fifos:   []string{"eval.yaml"},
			path:    "eval.yaml",
			wantErr: []string{"could not read eval file: it is a named pipe (FIFO), not a regular file"},
		},
		{
			name:    "eval file linked to /dev/zero",
			links:   map[string]string{"eval.jsonl": "/dev/zero"},
			path:    "eval.jsonl",
			wantErr: []string{"could not read eval file: it is a character device"},
		},
		{
			name: "fifo attachment",
			files: map[string]string{"eval.yaml": "evalcases:\n  - id: a\n    input_messages:\n      - role: user\n" +
				"        content:\n          - {type: file, value: data.txt}\n"},
			fifos:   []string{"data.txt"},
			path:    "eval.yaml",
			wantWrn: []string{`file "data.txt" not found`, "data.txt is a named pipe (FIFO), not a regular file"},
			cases:   1,
		},
		{
			name: "fifo guideline",
			files: map[string]string{"eval.yaml": "evalcases:\n  - id: a\n    input_messages:\n      - role: user\n" +
				"        content:\n          - {type: file, value: style.instructions.md}\n"},
			fifos:   []string{"style.instructions.md"},
			path:    "eval.yaml",
			wantWrn: []string{"style.instructions.md is a named pipe (FIFO), not a regular file"},
			cases:   1,
		},
		{
			name:    "fifo prompt file",
			files:   map[string]string{"eval.yaml": "evalcases:\n  - id: a\n    input: hi\n    evaluators:\n      - {name: j, type: llm_judge, prompt: judge.md}\n"},
			fifos:   []string{"judge.md"},
			path:    "eval.yaml",
			wantErr: []string{`prompt file "judge.md" not found`, "judge.md is a named pipe (FIFO), not a regular file"},
		},
		{
			name: "oversize attachment",
			files: map[string]string{"big.txt": big, "eval.yaml": "evalcases:\n  - id: a\n    input_messages:\n      - role: user\n" +
				"        content:\n          - {type: file, value: big.txt}\n"},
			path:    "eval.yaml",
			wantWrn: []string{`could not read file "big.txt"`, "larger than the 32 MiB limit"},
			cases:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, tt.files)
			for _, f := range tt.fifos {
				if err := syscall.Mkfifo(filepath.Join(root, f), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan *Suite, 1)
			go func() { done <- Load(filepath.Join(root, tt.path), LoadOptions{Cwd: root}) }()
			var s *Suite
			select {
			case s = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Load blocked on a special file")
			}
			errs, warns := diagMessages(s.Diagnostics, SeverityError), diagMessages(s.Diagnostics, SeverityWarning)
			check := func(kind string, got, want []string) {
				for _, w := range want {
					found := false
					for _, g := range got {
						found = found || strings.Contains(g, w)
					}
					if !found {
						t.Errorf("no %s contains %q:\n%s", kind, w, formatDiags(s.Diagnostics))
					}
				}
			}
			check("error", errs, tt.wantErr)
			check("warning", warns, tt.wantWrn)
			if len(tt.wantErr) == 0 && len(errs) > 0 {
				t.Errorf("unexpected errors:\n%s", formatDiags(s.Diagnostics))
			}
			if len(s.Cases) != tt.cases {
				t.Errorf("%d cases, want %d", len(s.Cases), tt.cases)
			}
		})
	}
}

// A FIFO named like an eval file in a directory being expanded is listed (the loader then
// refuses it), and looking at it never blocks the walk: Expand peeks at YAML files to tell a
// suite from a list of tests a suite includes.
func TestExpandDoesNotBlockOnFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("evalcases: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan []string, 1)
	go func() {
		files, _ := Expand([]string{dir}, dir)
		done <- files
	}()
	select {
	case files := <-done:
		if len(files) != 2 {
			t.Errorf("Expand = %q, want a.yaml and pipe.yaml", files)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Expand blocked on a FIFO")
	}
}
