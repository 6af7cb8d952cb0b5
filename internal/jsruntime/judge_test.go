package jsruntime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgeCommand checks that a code judge given as a script path gets the interpreter a
// prompt template would, and that any other command is left alone.
func TestJudgeCommand(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	d, err := prepareSDK(cache)
	if err != nil {
		t.Fatal(err)
	}
	hook := fileURL(d.register())
	cwd := t.TempDir()
	tests := []struct {
		name    string
		bins    []string
		node    string
		argv    []string
		want    []string // BIN/ is the fake PATH folder, CWD/ the judge's folder
		env     bool     // the SDK environment is added
		wantErr string
	}{
		{name: "ts string with bun", bins: []string{"bun", "node"}, node: "v20.1.0", argv: []string{"sh", "-c", "judges/tone.ts"},
			want: []string{"BIN/bun", "run", "CWD/judges/tone.ts"}, env: true},
		{name: "ts string with words", bins: []string{"tsx"}, argv: []string{"sh", "-c", "  judges/tone.ts --strict  x "},
			want: []string{"BIN/tsx", "--import", hook, "CWD/judges/tone.ts", "--strict", "x"}, env: true},
		{name: "ts list with node 22.6", bins: []string{"node"}, node: "v22.6.0", argv: []string{"judges/tone.mts", "a"},
			want: []string{"BIN/node", "--experimental-strip-types", "--disable-warning=ExperimentalWarning", "--import", hook, "CWD/judges/tone.mts", "a"}, env: true},
		{name: "js string with node", bins: []string{"node", "bun"}, node: "v20.1.0", argv: []string{"sh", "-c", "./judge.js"},
			want: []string{"BIN/node", "--import", hook, "CWD/judge.js"}, env: true},
		{name: "absolute path kept", bins: []string{"bun"}, argv: []string{"sh", "-c", "/opt/j.ts"},
			want: []string{"BIN/bun", "run", "/opt/j.ts"}, env: true},
		{name: "python script", bins: []string{"python3"}, argv: []string{"sh", "-c", "judge.py"},
			want: []string{"BIN/python3", "CWD/judge.py"}},
		{name: "interpreter named by the user", bins: []string{"bun", "node"}, argv: []string{"node", "judge.ts"},
			want: []string{"node", "judge.ts"}},
		{name: "shell pipeline", bins: []string{"bun"}, argv: []string{"sh", "-c", "judge.ts | tee log"},
			want: []string{"sh", "-c", "judge.ts | tee log"}},
		{name: "shell variable", bins: []string{"bun"}, argv: []string{"sh", "-c", "X=1 judge.ts"},
			want: []string{"sh", "-c", "X=1 judge.ts"}},
		{name: "binary", bins: []string{"bun"}, argv: []string{"./judge"}, want: []string{"./judge"}},
		{name: "ts without a runtime says what to install", node: "v20.1.0", bins: []string{"node"}, argv: []string{"sh", "-c", "judges/tone.ts"},
			wantErr: "install bun (https://bun.sh, or npm install -g bun), tsx (npm install -g tsx) or Node.js 22.6 or newer (the node on PATH is v20.1.0"},
		{name: "js without a runtime", argv: []string{"judge.cjs"}, wantErr: "install Node.js or bun"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bin := fakeBin(t, tt.node, tt.bins...)
			r := Resolver{LookPath: lookIn(bin), CacheDir: cache, Env: []string{}}
			argv, env, err := r.JudgeCommand(tt.argv, cwd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(tt.want))
			for i, a := range tt.want {
				want[i] = strings.NewReplacer("BIN/", bin+"/", "CWD/", cwd+"/").Replace(a)
			}
			if tt.name == "js string with node" {
				want[len(want)-1] = filepath.Join(cwd, "judge.js")
			}
			if diff := cmp.Diff(want, argv); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if got := len(env) > 0; got != tt.env {
				t.Errorf("env = %v, want SDK environment: %v", env, tt.env)
			}
		})
	}
}

// TestCheckJudge checks the reasons validate gives for a code judge that cannot run.
func TestCheckJudge(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	for name, mode := range map[string]os.FileMode{"judge.ts": 0o644, "judge.py": 0o644, "run-judge": 0o755, "plain": 0o644} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		bins    []string
		node    string
		argv    []string
		wantErr string // "" means it can run
	}{
		{name: "ts with bun", bins: []string{"bun"}, argv: []string{"sh", "-c", "judge.ts"}},
		{name: "ts without a runtime", bins: []string{"node"}, node: "v18.0.0", argv: []string{"sh", "-c", "judge.ts"}, wantErr: "install bun"},
		{name: "missing script", bins: []string{"bun"}, argv: []string{"sh", "-c", "judges/nope.ts"}, wantErr: "script judges/nope.ts: not found"},
		{name: "python list", bins: []string{"python3"}, argv: []string{"python3", "judge.py"}},
		{name: "python list, missing file", bins: []string{"python3"}, argv: []string{"python3", "-u", "nope.py"}, wantErr: "script nope.py: not found"},
		{name: "interpreter not installed", argv: []string{"ruby", "judge.rb"}, wantErr: "command ruby is not installed"},
		{name: "executable path", argv: []string{"./run-judge"}},
		{name: "path not executable", argv: []string{"./plain"}, wantErr: "not an executable file"},
		{name: "path missing", argv: []string{"bin/judge"}, wantErr: "command bin/judge: not found"},
		{name: "shell command not looked into", argv: []string{"sh", "-c", "cd x && ./judge | jq ."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bin := fakeBin(t, tt.node, tt.bins...)
			err := Resolver{LookPath: lookIn(bin), CacheDir: t.TempDir(), Env: []string{}}.CheckJudge(tt.argv, cwd)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("CheckJudge = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("CheckJudge = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
