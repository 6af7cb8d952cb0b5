package history

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/results"
)

// File is a results file of an earlier run and the run it describes.
type File struct {
	Path string
	Run  Run
}

// Files orders results files by their run's start (the start record's timestamp), else by
// the file's modification time, oldest first; ties go by path. A run is labelled by the
// folder that holds its file (runs/2026-01-05/results.jsonl: "2026-01-05"), else the file's
// name. At most the newest keep are kept (0: all).
func Files(paths []string, keep int) ([]File, error) {
	out := make([]File, 0, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		started := fi.ModTime()
		if start, _ := results.ReadRunStart(p); start != nil {
			if t, err := time.Parse(time.RFC3339Nano, start.Timestamp); err == nil {
				started = t
			}
		}
		label := filepath.Base(filepath.Dir(p))
		if label == "." || label == string(filepath.Separator) {
			label = filepath.Base(p)
		}
		out = append(out, File{Path: p, Run: Run{Label: label, Started: started}})
	}
	slices.SortStableFunc(out, func(a, b File) int {
		return cmp.Or(a.Run.Started.Compare(b.Run.Started), cmp.Compare(a.Path, b.Path))
	})
	if keep > 0 && len(out) > keep {
		out = out[len(out)-keep:]
	}
	return out, nil
}

// ReadFiles reads files, oldest first, into a new history. A file that cannot be read is an
// error naming it.
func ReadFiles(files []File, threshold float64) (*History, error) {
	h := New()
	for _, f := range files {
		if err := h.readFile(f, threshold); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *History) readFile(f File, threshold float64) error {
	path, err := results.ResolvePath(f.Path)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	r, err := safefile.Open(path)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer r.Close()
	if err := h.ReadRun(f.Run, r, threshold); err != nil {
		return fmt.Errorf("history %s: %w", f.Path, err)
	}
	return nil
}
