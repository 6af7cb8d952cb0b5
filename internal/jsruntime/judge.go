package jsruntime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// shellSpecial are the characters that make a command string more than a path and its words:
// such a string stays a shell command.
const shellSpecial = "|&;<>()$`\\\"'*?[]#~={}!\n\r"

// judgeScript finds the script file of a code judge's argv: a command string
// (["sh", "-c", "judges/tone.ts --strict"]) made of a script path and plain words, or an argv
// list whose first item is a script path. ok is false for anything else (an interpreter the
// user named, a shell pipeline, a binary).
func judgeScript(argv []string) (script string, rest []string, ok bool) {
	if len(argv) == 3 && argv[0] == "sh" && argv[1] == "-c" {
		if strings.ContainsAny(argv[2], shellSpecial) {
			return "", nil, false
		}
		argv = strings.Fields(argv[2])
	}
	if len(argv) == 0 || !IsScript(argv[0]) {
		return "", nil, false
	}
	return argv[0], argv[1:], true
}

// JudgeCommand returns the argv and extra environment (NAME=value) that run a code judge. A
// judge given as a .ts/.mts/.js/.mjs/.cjs/.py path (`script: judges/tone.ts`, or the first item
// of a list) runs with the interpreter Command picks for prompt templates, the path taken from
// cwd: a script file needs neither an executable bit nor a shebang, and TypeScript runs with
// bun, tsx or Node 22.6+. Any other argv is returned as it is, with no environment.
func (r Resolver) JudgeCommand(argv []string, cwd string) ([]string, []string, error) {
	script, rest, ok := judgeScript(argv)
	if !ok {
		return argv, nil, nil
	}
	run, env, err := r.Command(inDir(cwd, script))
	if err != nil {
		return nil, nil, err
	}
	return append(run, rest...), env, nil
}

// CheckJudge says why a code judge's argv cannot run from cwd, or returns nil: a script path
// that is not there, a script whose interpreter is not installed (with what to install), a
// command that is not on PATH. A shell command string is not looked into.
func (r Resolver) CheckJudge(argv []string, cwd string) error {
	if len(argv) == 0 {
		return errors.New("no script")
	}
	if script, _, ok := judgeScript(argv); ok {
		if err := regularFile(inDir(cwd, script)); err != nil {
			return fmt.Errorf("script %s: %w", script, err)
		}
		_, err := r.runtime(inDir(cwd, script))
		return err
	}
	if argv[0] == "sh" && len(argv) == 3 && argv[1] == "-c" {
		return nil
	}
	cmd := argv[0]
	if strings.ContainsRune(cmd, '/') || strings.ContainsRune(cmd, filepath.Separator) {
		fi, err := os.Stat(inDir(cwd, cmd))
		switch {
		case err != nil:
			return fmt.Errorf("command %s: %w", cmd, notFound(err))
		case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
			return fmt.Errorf("command %s is not an executable file", cmd)
		}
	} else if _, ok := r.has(cmd); !ok {
		return fmt.Errorf("command %s is not installed (not found on PATH)", cmd)
	}
	// An interpreter given a script file: the file must be there.
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if IsScript(a) {
			if err := regularFile(inDir(cwd, a)); err != nil {
				return fmt.Errorf("script %s: %w", a, err)
			}
		}
		break
	}
	return nil
}

// inDir is path taken from dir unless it is absolute.
func inDir(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

func regularFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return notFound(err)
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a file")
	}
	return nil
}

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("not found")
	}
	return err
}
