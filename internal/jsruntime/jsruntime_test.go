package jsruntime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeBin makes a folder of stand-in executables; a "node" prints nodeVersion for --version.
func fakeBin(t *testing.T, nodeVersion string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		body := "#!/bin/sh\nexit 0\n"
		if name == "node" {
			body = "#!/bin/sh\necho " + nodeVersion + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCommand(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	d, err := prepareSDK(cache)
	if err != nil {
		t.Fatal(err)
	}
	hook := fileURL(d.register())
	nodePath := "NODE_PATH=" + d.nodeModules()
	script := filepath.Join(t.TempDir(), "judge")

	tests := []struct {
		name    string
		node    string   // version a fake node prints
		bins    []string // executables on the fake PATH
		ext     string
		want    []string // argv with "BIN/" standing for the fake folder and SCRIPT for the script
		env     []string
		wantErr string
	}{
		{name: "ts prefers bun", bins: []string{"bun", "tsx", "node"}, node: "v24.1.0", ext: ".ts",
			want: []string{"BIN/bun", "run", "SCRIPT"}, env: []string{nodePath}},
		{name: "mts with tsx", bins: []string{"tsx", "node"}, node: "v20.20.2", ext: ".mts",
			want: []string{"BIN/tsx", "--import", hook, "SCRIPT"}, env: []string{nodePath}},
		{name: "ts with node 22.6 needs the strip flag", bins: []string{"node"}, node: "v22.6.0", ext: ".ts",
			want: []string{"BIN/node", "--experimental-strip-types", "--disable-warning=ExperimentalWarning", "--import", hook, "SCRIPT"}, env: []string{nodePath}},
		{name: "ts with node 24 strips by default", bins: []string{"node"}, node: "v24.21.0", ext: ".ts",
			want: []string{"BIN/node", "--disable-warning=ExperimentalWarning", "--import", hook, "SCRIPT"}, env: []string{nodePath}},
		{name: "ts with node 22.5 fails", bins: []string{"node"}, node: "v22.5.1", ext: ".ts",
			wantErr: "install bun (https://bun.sh, or npm install -g bun), tsx (npm install -g tsx) or Node.js 22.6 or newer (the node on PATH is v22.5.1, which cannot run TypeScript)"},
		{name: "ts with nothing fails", ext: ".TS", wantErr: "cannot run TypeScript script"},
		{name: "js prefers node", bins: []string{"bun", "node"}, node: "v20.20.2", ext: ".js",
			want: []string{"BIN/node", "--import", hook, "SCRIPT"}, env: []string{nodePath}},
		{name: "cjs with bun only", bins: []string{"bun"}, ext: ".cjs",
			want: []string{"BIN/bun", "run", "SCRIPT"}, env: []string{nodePath}},
		{name: "mjs with nothing fails", ext: ".mjs", wantErr: "cannot run JavaScript script"},
		{name: "python3", bins: []string{"python3", "node"}, ext: ".py", want: []string{"BIN/python3", "SCRIPT"}},
		{name: "python fallback", bins: []string{"python"}, ext: ".py", want: []string{"BIN/python", "SCRIPT"}},
		{name: "python missing", ext: ".py", wantErr: "install python3"},
		{name: "unknown extension", bins: []string{"node"}, ext: ".rb", wantErr: "is not an executable script"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bin := fakeBin(t, tt.node, tt.bins...)
			r := Resolver{LookPath: lookIn(bin), CacheDir: cache, Env: []string{}}
			argv, env, err := r.Command(script + tt.ext)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Command() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(tt.want))
			for i, a := range tt.want {
				want[i] = strings.NewReplacer("BIN/", bin+"/", "SCRIPT", script+tt.ext).Replace(a)
			}
			if diff := cmp.Diff(want, argv); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.env, env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandMakesScriptAbsolute(t *testing.T) {
	t.Parallel()
	bin := fakeBin(t, "", "bun")
	argv, _, err := Resolver{LookPath: lookIn(bin), CacheDir: t.TempDir()}.Command("prompts/x.ts")
	if err != nil {
		t.Fatal(err)
	}
	if last := argv[len(argv)-1]; !filepath.IsAbs(last) || !strings.HasSuffix(last, filepath.Join("prompts", "x.ts")) {
		t.Errorf("script argument %q, want the absolute path of prompts/x.ts", last)
	}
}

// The user's NODE_PATH and NODE_OPTIONS are kept, with ours appended once.
func TestSDKEnvExtendsUserSettings(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	d, err := prepareSDK(cache)
	if err != nil {
		t.Fatal(err)
	}
	hook := fileURL(d.register())
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{name: "empty", env: []string{"HOME=/h"},
			want: []string{"NODE_PATH=" + d.nodeModules(), "NODE_OPTIONS=--import=" + hook}},
		{name: "user settings kept", env: []string{"NODE_PATH=/old", "NODE_PATH=/mine", "NODE_OPTIONS=--max-old-space-size=512"},
			want: []string{"NODE_PATH=/mine:" + d.nodeModules(), "NODE_OPTIONS=--max-old-space-size=512 --import=" + hook}},
		{name: "not added twice", env: []string{"NODE_PATH=" + d.nodeModules(), "NODE_OPTIONS=--import=" + hook},
			want: []string{"NODE_PATH=" + d.nodeModules(), "NODE_OPTIONS=--import=" + hook}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Resolver{CacheDir: cache, Env: tt.env}.SDKEnv()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SDKEnv() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseNodeVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		want      nodeVersion
		strips    bool
		stripsDef bool
	}{
		{"v20.20.2\n", nodeVersion{20, 20, 2}, false, false},
		{"v22.6.0", nodeVersion{22, 6, 0}, true, false},
		{"v23.6.1", nodeVersion{23, 6, 1}, true, true},
		{"v26.10.0", nodeVersion{26, 10, 0}, true, true},
		{"1.4.4", nodeVersion{}, false, false},
		{"", nodeVersion{}, false, false},
	}
	for _, tt := range tests {
		got := parseNodeVersion(tt.in)
		if got != tt.want || got.atLeast(22, 6) != tt.strips || got.atLeast(23, 6) != tt.stripsDef {
			t.Errorf("parseNodeVersion(%q) = %v (strips %v, by default %v), want %v (%v, %v)",
				tt.in, got, got.atLeast(22, 6), got.atLeast(23, 6), tt.want, tt.strips, tt.stripsDef)
		}
	}
}

func TestIsScript(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"a.ts": true, "a.MTS": true, "a.js": true, "a.mjs": true, "a.cjs": true, "a.py": true,
		"a.txt": false, "a.md": false, "a.d.ts.map": false, "ts": false,
	} {
		if got := IsScript(path); got != want {
			t.Errorf("IsScript(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestFileURL(t *testing.T) {
	t.Parallel()
	if got, want := fileURL("/cache dir/agentv/register.mjs"), "file:///cache%20dir/agentv/register.mjs"; got != want {
		t.Errorf("fileURL() = %q, want %q", got, want)
	}
}

func FuzzParseNodeVersion(f *testing.F) {
	for _, s := range []string{"v20.20.2\n", "v22.6.0", "v1", "vx.y.z", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := parseNodeVersion(s)
		if v != (nodeVersion{}) && !strings.HasPrefix(strings.TrimSpace(s), "v") {
			t.Errorf("parseNodeVersion(%q) = %v from text without a leading v", s, v)
		}
		_ = v.String()
	})
}
