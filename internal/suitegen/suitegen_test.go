package suitegen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	for _, mode := range Modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir, err := Write(t.TempDir(), mode, 3)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(dir) != mode+"-3" {
				t.Errorf("directory %s", dir)
			}
			eval, err := os.ReadFile(filepath.Join(dir, "eval.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(eval), "\n  - id: case-"); got != 3 {
				t.Errorf("%d cases", got)
			}
			if !strings.Contains(string(eval), Question(3)) {
				t.Errorf("eval.yaml lacks the third question:\n%s", eval)
			}
			if _, err := os.Stat(filepath.Join(dir, ".agentv", "targets.yaml")); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestWriteRejects(t *testing.T) {
	t.Parallel()
	if _, err := Write(t.TempDir(), "telepathy", 3); err == nil || !strings.Contains(err.Error(), `unknown mode "telepathy"`) {
		t.Errorf("unknown mode: %v", err)
	}
	if _, err := Write(t.TempDir(), "fa", 0); err == nil {
		t.Error("zero cases accepted")
	}
}
