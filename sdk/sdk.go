// Package sdk carries the compiled JavaScript packages `@agentv/eval` (js/), `@agentv/core`
// (js-core/) and `@agentv/sdk` (js-sdk/) inside the agentv binary, so user scripts can import
// them with nothing installed: internal/jsruntime writes them to a cache folder and points the
// JavaScript runtime at it.
//
// The TypeScript sources live in js/src; the compiled dist/ folders are committed so that building
// the Go binary needs no npm (run `npm run build` in js/ after changing the sources; a test fails
// when dist/ is stale).
package sdk

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed js/package.json js/dist js-core/package.json js-core/dist js-sdk/package.json js-sdk/dist
var files embed.FS

// Package is one npm package carried in the binary.
type Package struct {
	Name    string // npm name, e.g. "@agentv/eval"
	Version string // from its package.json
	FS      fs.FS  // the package folder: package.json and dist/
}

// dirs maps the embedded folders to their packages, in a fixed order.
var dirs = []string{"js", "js-core", "js-sdk"}

// Packages returns the embedded packages: `@agentv/eval` first, then `@agentv/core` and
// `@agentv/sdk` (AgentV 4.x's grader helpers, re-exported from `@agentv/eval/sdk`).
func Packages() ([]Package, error) {
	out := make([]Package, 0, len(dirs))
	for _, dir := range dirs {
		sub, err := fs.Sub(files, dir)
		if err != nil {
			return nil, err
		}
		data, err := fs.ReadFile(sub, "package.json")
		if err != nil {
			return nil, fmt.Errorf("embedded sdk %s: %w", dir, err)
		}
		var meta struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}
		if err := json.Unmarshal(data, &meta); err != nil {
			return nil, fmt.Errorf("embedded sdk %s/package.json: %w", dir, err)
		}
		out = append(out, Package{Name: meta.Name, Version: meta.Version, FS: sub})
	}
	return out, nil
}

// Hash identifies the embedded files (names and contents): two binaries with the same SDK give the
// same hash, so a cache folder named after it can be reused across runs.
func Hash() string {
	h := sha256.New()
	var paths []string
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		data, _ := files.ReadFile(p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}
