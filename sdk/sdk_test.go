package sdk

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestPackages(t *testing.T) {
	t.Parallel()
	pkgs, err := Packages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 3 || pkgs[0].Name != "@agentv/eval" || pkgs[1].Name != "@agentv/core" || pkgs[2].Name != "@agentv/sdk" {
		t.Fatalf("Packages() = %+v, want @agentv/eval, @agentv/core, @agentv/sdk", pkgs)
	}
	for _, p := range pkgs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			data, err := fs.ReadFile(p.FS, "package.json")
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Type         string            `json:"type"`
				Main         string            `json:"main"`
				Exports      map[string]any    `json:"exports"`
				Dependencies map[string]string `json:"dependencies"`
			}
			if err := json.Unmarshal(data, &meta); err != nil {
				t.Fatal(err)
			}
			if meta.Type != "module" {
				t.Errorf("type = %q, want module", meta.Type)
			}
			// Every file the package points at must be embedded, or imports fail at run time.
			targets := []string{meta.Main}
			var collect func(v any)
			collect = func(v any) {
				switch v := v.(type) {
				case string:
					targets = append(targets, v)
				case map[string]any:
					for _, x := range v {
						collect(x)
					}
				}
			}
			collect(meta.Exports)
			for _, target := range targets {
				if _, err := fs.Stat(p.FS, path.Clean(target)); err != nil {
					t.Errorf("%s points at %s, which is not embedded: %v", p.Name, target, err)
				}
			}
			// dist/cjs holds .js files that Node must load as CommonJS inside a "type": "module" package.
			if data, err := fs.ReadFile(p.FS, "dist/cjs/package.json"); err != nil || !strings.Contains(string(data), `"commonjs"`) {
				t.Errorf("dist/cjs/package.json must declare type commonjs (err %v)", err)
			}
			if p.Name != "@agentv/eval" {
				if got, want := meta.Dependencies["@agentv/eval"], pkgs[0].Version; got != want {
					t.Errorf("%s depends on @agentv/eval %q, want the shipped version %q", p.Name, got, want)
				}
			}
		})
	}
}

func TestEmbedsOnlyPackageFiles(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if strings.Contains(p, "node_modules") || strings.HasSuffix(p, ".ts") && !strings.HasSuffix(p, ".d.ts") {
			t.Errorf("embedded %s: only package.json and compiled dist files belong in the binary", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	h := Hash()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h) {
		t.Fatalf("Hash() = %q, want 64 hex digits", h)
	}
	if h2 := Hash(); h2 != h {
		t.Fatalf("Hash() changed between calls: %s then %s", h, h2)
	}
}

// The SDK's own tests (node:test files in js/test) under each available runtime.
func TestJSTests(t *testing.T) {
	t.Parallel()
	tests, err := filepath.Glob(filepath.Join("js", "test", "*.test.mjs"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no js/test/*.test.mjs files (err %v)", err)
	}
	rel := make([]string, len(tests))
	for i, f := range tests {
		rel[i] = "./" + filepath.ToSlash(strings.TrimPrefix(f, "js"+string(filepath.Separator)))
	}
	runtimes := []struct {
		name, bin string
		args      []string
	}{
		{"node", "node", append([]string{"--test"}, rel...)},
		{"bun", "bun", append([]string{"test"}, rel...)},
	}
	for _, rt := range runtimes {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			bin, err := exec.LookPath(rt.bin)
			if err != nil {
				t.Skipf("%s is not on PATH: install it to run the @agentv/eval tests with it (see .ci/run)", rt.bin)
			}
			cmd := exec.CommandContext(t.Context(), bin, rt.args...)
			cmd.Dir = "js"
			cmd.Stdin = nil // /dev/null: a fixture run by mistake must not wait for input
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s in sdk/js failed: %v\n%s", rt.bin, strings.Join(rt.args, " "), err, out)
			}
		})
	}
}

// dist/ is committed so the Go build needs no npm; it must be what tsc makes of src/ today.
func TestDistUpToDate(t *testing.T) {
	t.Parallel()
	tsc := filepath.Join("js", "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Skip("sdk/js/node_modules/.bin/tsc is missing: run `npm ci` in sdk/js to check that dist/ matches src/")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: it is needed to run tsc")
	}
	out := t.TempDir()
	abs, err := filepath.Abs(tsc)
	if err != nil {
		t.Fatal(err)
	}
	for _, build := range []struct{ config, outDir string }{
		{"tsconfig.json", out},
		{"tsconfig.cjs.json", filepath.Join(out, "cjs")},
	} {
		cmd := exec.CommandContext(t.Context(), abs, "-p", build.config, "--outDir", build.outDir)
		cmd.Dir = "js"
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tsc -p %s: %v\n%s", build.config, err, b)
		}
	}
	want := readTree(t, out)
	got := readTree(t, filepath.Join("js", "dist"))
	// Hand-written: marks dist/cjs as CommonJS inside a "type": "module" package.
	delete(got, "cjs/package.json")
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("dist/%s is missing", name)
		case g != w:
			t.Errorf("dist/%s differs from what tsc makes of src/", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("dist/%s is not produced from src/ any more", name)
		}
	}
	if t.Failed() {
		t.Log("dist/ is stale: run `npm run build` in sdk/js and commit dist/")
	}
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		m[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
