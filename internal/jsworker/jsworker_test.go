package jsworker

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentv/action/internal/proc"
)

func TestParse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	abs := filepath.Join(dir, "g.mjs")
	cases := []struct {
		argv    []string
		runtime []string
		args    []string
		ok      bool
	}{
		{[]string{"/usr/bin/node", "--import", "file:///h.mjs", abs}, []string{"/usr/bin/node", "--import", "file:///h.mjs"}, []string{}, true},
		{[]string{"node", "g.mjs", "--strict"}, []string{"node"}, []string{"--strict"}, true},
		{[]string{"/usr/bin/bun", "run", "/x/g.ts"}, []string{"/usr/bin/bun", "run"}, []string{}, true},
		{[]string{"bun", "g.ts"}, []string{"bun"}, []string{}, true},
		{[]string{"node", "--experimental-strip-types", "--disable-warning=ExperimentalWarning", "--import=h", "g.ts"},
			[]string{"node", "--experimental-strip-types", "--disable-warning=ExperimentalWarning", "--import=h"}, []string{}, true},
		{[]string{"sh", "-c", "node g.mjs a"}, []string{"node"}, []string{"a"}, true},
		{[]string{"sh", "-c", "node g.mjs | tee x"}, nil, nil, false}, // a pipeline stays a shell's
		{[]string{"node", "-e", "1"}, nil, nil, false},                // unknown option
		{[]string{"node", "--require", "x", "g.js"}, nil, nil, false}, // unknown option
		{[]string{"node", "g.py"}, nil, nil, false},
		{[]string{"python3", "g.py"}, nil, nil, false},
		{[]string{"deno", "run", "g.ts"}, nil, nil, false},
		{[]string{"node"}, nil, nil, false},
		{[]string{"node", "--import"}, nil, nil, false},
	}
	for _, tc := range cases {
		p, ok := parse(tc.argv, dir)
		if ok != tc.ok {
			t.Errorf("parse(%q) ok = %v", tc.argv, ok)
			continue
		}
		if !ok {
			continue
		}
		if !slices.Equal(p.runtime, tc.runtime) || !slices.Equal(p.args, tc.args) || !filepath.IsAbs(p.script) {
			t.Errorf("parse(%q) = %+v", tc.argv, p)
		}
	}
	// tsx's own child process would not get the worker's descriptors: node runs the worker with
	// tsx's loader.
	if node, loader, ok := tsxLoader("tsx"); ok {
		p, ok := parse([]string{"tsx", "--import", "h", "g.mts"}, dir)
		if want := []string{node, "--import", loader, "--import", "h"}; !ok || !slices.Equal(p.runtime, want) {
			t.Errorf("tsx: %+v, want runtime %q", p, want)
		}
	}
	if _, ok := parse([]string{"/nonexistent/tsx", "g.ts"}, dir); ok {
		t.Error("a tsx whose loader is not found is spawned")
	}
	if p, _ := parse([]string{"node", "g.mjs"}, dir); p.script != abs {
		t.Errorf("script %q, want %q (taken from the working directory)", p.script, abs)
	}
}

func TestSDKGrader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src string
		ok  bool
	}{
		{"import { defineCodeGrader } from '@agentv/sdk';\ndefineCodeGrader(() => ({score: 1}));", true},
		{"import { defineAssertion } from \"@agentv/eval/sdk\";\nexport default defineAssertion(() => ({pass: true}));", true},
		{"const { definePromptTemplate } = require('@agentv/eval');\ndefinePromptTemplate(() => 'p');", true},
		{"import { defineCodeJudge } from '@agentv/eval';\ndefineCodeJudge (() => ({score: 1}));", true},
		{"import { defineCodeGrader } from './helpers.js';\ndefineCodeGrader(() => ({score: 1}));", false},    // the SDK only through a file of its own
		{"import { readCodeJudgePayload } from '@agentv/core';\nconsole.log(readCodeJudgePayload());", false}, // reads stdin itself
		{"import { defineCodeGrader } from '@agentv/sdk';\nconst s = process.stdin;\ndefineCodeGrader(() => 1);", false},
		{"import { readFileSync } from 'fs';\nimport { defineCodeGrader } from '@agentv/sdk';\nreadFileSync(0);\ndefineCodeGrader(f);", false},
		{"import fs from 'fs';\nconsole.log(JSON.parse(fs.readFileSync(0, 'utf8')));", false},
	}
	dir := t.TempDir()
	for i, tc := range cases {
		p := filepath.Join(dir, "s"+string(rune('a'+i))+".mjs")
		if err := os.WriteFile(p, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := sdkGrader(p); got != tc.ok {
			t.Errorf("sdkGrader(%q) = %v, want %v", tc.src, got, tc.ok)
		}
	}
	if sdkGrader(filepath.Join(dir, "missing.mjs")) {
		t.Error("a missing script is not an SDK grader")
	}
}

// TestForeignSDK: a user's own @agentv package (the real @agentv/sdk 4.42.4, say) in the
// script's node_modules or one above, or on NODE_PATH, sends the script to a spawn; a copy of
// agentv's own does not.
func TestForeignSDK(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	script := filepath.Join(root, "a", "b", "g.mjs")
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(script, "")
	if foreignSDK(script, nil) {
		t.Fatal("no node_modules: nothing foreign")
	}
	ownDir := filepath.Join(root, "own")
	write(filepath.Join(ownDir, "@agentv", "sdk", "package.json"), string(ownPackages["@agentv/sdk"]))
	if len(ownPackages["@agentv/sdk"]) == 0 || foreignSDK(script, []string{"NODE_PATH=" + ownDir}) {
		t.Fatal("agentv's own copy on NODE_PATH is not foreign")
	}
	write(filepath.Join(root, "other", "@agentv", "core", "package.json"), `{"name":"@agentv/core","version":"4.42.4"}`)
	if !foreignSDK(script, []string{"NODE_PATH=" + ownDir + string(os.PathListSeparator) + filepath.Join(root, "other")}) {
		t.Error("a user's copy on NODE_PATH is foreign")
	}
	write(filepath.Join(root, "a", "node_modules", "@agentv", "sdk", "package.json"), `{"name":"@agentv/sdk","version":"4.42.4"}`)
	if !foreignSDK(script, nil) {
		t.Error("a user's @agentv/sdk above the script is foreign")
	}
}

// TestFenced: a call's output ends at the fence, wherever the reads cut it; bytes with no
// call to take them mark the stream dirty.
func TestFenced(t *testing.T) {
	t.Parallel()
	fence := []byte("\x01FENCE\x01")
	calls := []string{"first call\n", "", "third \x01FENC call", strings.Repeat("big", 50000)}
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r }, "bytes": iotest.OneByteReader, "halves": iotest.HalfReader,
	} {
		f := newFenced(fence)
		pr, pw := io.Pipe()
		go f.run(wrap(pr))
		for i, want := range calls {
			var got bytes.Buffer
			f.setSink(&got)
			go func() { _, _ = pw.Write(append([]byte(want), fence...)) }()
			<-f.fences
			if got.String() != want {
				t.Errorf("%s: call %d got %q, want %q", name, i, proc.Excerpt(got.String(), 40), proc.Excerpt(want, 40))
			}
		}
		if f.isDirty() {
			t.Errorf("%s: dirty after fenced calls", name)
		}
		go func() { _, _ = pw.Write([]byte("late")); pw.Close() }()
		<-f.eof
		if !f.isDirty() {
			t.Errorf("%s: output between calls must mark the stream dirty", name)
		}
	}
}
