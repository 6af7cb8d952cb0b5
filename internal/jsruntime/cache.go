package jsruntime

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentv/action/sdk"
)

// hooks holds the Node loader files written next to the SDK copy.
//
//go:embed hooks/register.mjs hooks/hooks.mjs
var hooks embed.FS

// completeMarker is written last into a cache folder: a folder without it is unfinished.
const completeMarker = ".complete"

// sdkDir is a materialized SDK: <dir>/node_modules/@agentv/{eval,core,sdk} and <dir>/register.mjs.
type sdkDir struct {
	dir string
}

func (d sdkDir) nodeModules() string { return filepath.Join(d.dir, "node_modules") }
func (d sdkDir) register() string    { return filepath.Join(d.dir, "register.mjs") }

// prepared memoizes materialization per cache root for the life of the process: one run writes
// (or finds) the SDK once, however many scripts it starts.
var prepared sync.Map // root → *preparation

type preparation struct {
	once sync.Once
	dir  sdkDir
	err  error
}

// contentHash names the cache folder after everything written into it.
func contentHash() string {
	h := sha256.New()
	h.Write([]byte(sdk.Hash()))
	for _, name := range []string{"hooks/register.mjs", "hooks/hooks.mjs"} {
		data, _ := hooks.ReadFile(name)
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// prepareSDK returns the materialized SDK under root ("" for the user cache folder), writing it
// the first time. When the cache folder cannot be written, it falls back to a private temporary
// folder for this process.
func prepareSDK(root string) (sdkDir, error) {
	v, _ := prepared.LoadOrStore(root, &preparation{})
	p := v.(*preparation)
	p.once.Do(func() {
		if root != "" {
			p.dir, p.err = materialize(root)
			return
		}
		if base, err := os.UserCacheDir(); err == nil {
			if p.dir, p.err = materialize(filepath.Join(base, "agentv", "sdk")); p.err == nil {
				return
			}
		}
		tmp, err := os.MkdirTemp("", "agentv-sdk-")
		if err != nil {
			p.err = fmt.Errorf("could not create a folder for the @agentv/eval SDK: %w", err)
			return
		}
		p.dir, p.err = materialize(tmp)
	})
	return p.dir, p.err
}

// materialize writes the SDK into root/<content hash> unless a complete copy is there. It writes
// into a temporary sibling and renames it into place, so concurrent agentv processes never see a
// half-written folder.
func materialize(root string) (sdkDir, error) {
	final := filepath.Join(root, contentHash())
	d := sdkDir{dir: final}
	if _, err := os.Stat(filepath.Join(final, completeMarker)); err == nil {
		return d, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return d, fmt.Errorf("could not create the @agentv/eval SDK cache %s: %w", root, err)
	}
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return d, fmt.Errorf("could not write the @agentv/eval SDK into %s: %w", root, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return d, err
	}
	if err := writeSDK(tmp); err != nil {
		return d, fmt.Errorf("could not write the @agentv/eval SDK into %s: %w", root, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, completeMarker)); statErr == nil {
			return d, nil // another process finished first
		}
		// An unfinished folder left by a crash: replace it.
		if rmErr := os.RemoveAll(final); rmErr != nil {
			return d, fmt.Errorf("could not replace the unfinished SDK cache %s: %w", final, errors.Join(err, rmErr))
		}
		if err := os.Rename(tmp, final); err != nil {
			return d, fmt.Errorf("could not move the @agentv/eval SDK into %s: %w", final, err)
		}
	}
	return d, nil
}

func writeSDK(dir string) error {
	pkgs, err := sdk.Packages()
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		dst := filepath.Join(dir, "node_modules", filepath.FromSlash(p.Name))
		if err := copyFS(dst, p.FS); err != nil {
			return err
		}
	}
	for _, name := range []string{"register.mjs", "hooks.mjs"} {
		data, err := hooks.ReadFile("hooks/" + name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, completeMarker), nil, 0o644)
}

func copyFS(dst string, src fs.FS) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
