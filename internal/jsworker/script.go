package jsworker

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

//go:embed worker.mjs
var workerSource []byte

var (
	scriptOnce sync.Once
	scriptPath string
	scriptErr  error
)

// workerScript writes worker.mjs once per process into the user's cache folder (named after its
// content, so runs share it), or a temporary folder when that is not writable.
func workerScript() (string, error) {
	scriptOnce.Do(func() {
		sum := sha256.Sum256(workerSource)
		name := "worker-" + hex.EncodeToString(sum[:8]) + ".mjs"
		var dirs []string
		if base, err := os.UserCacheDir(); err == nil {
			dirs = append(dirs, filepath.Join(base, "agentv", "jsworker"))
		}
		for _, d := range dirs {
			if p, err := writeOnce(d, name); err == nil {
				scriptPath = p
				return
			}
		}
		d, err := os.MkdirTemp("", "agentv-jsworker-")
		if err != nil {
			scriptErr = fmt.Errorf("could not write the grader worker: %w", err)
			return
		}
		scriptPath, scriptErr = writeOnce(d, name)
	})
	return scriptPath, scriptErr
}

// writeOnce writes the worker into dir unless the same file is there; a rename makes it appear
// whole to a concurrent run.
func writeOnce(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil && string(b) == string(workerSource) {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".worker-*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(workerSource)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("could not write the grader worker: %w", cmpErr(werr, cerr))
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return p, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
