// Package procinit prepares the agentv process before anything else runs: it moves the
// GitHub and Actions runtime tokens out of the process environment, so that no child
// process (and no file reference to /proc/<pid>/environ) can read them, and, as PID 1 of
// a container, it acts as a minimal init that reaps orphaned processes.
//
// The environment a process was started with stays readable in /proc/<pid>/environ for
// its whole life, whatever it unsets later. So when the environment holds a token, Start
// writes the tokens into a pipe and re-executes the binary with an environment without them,
// naming the pipe's descriptor in AGENTV_SECRETS_FD; the new image reads the tokens and
// closes the pipe before anything else runs. The tokens then live only in agentv's memory,
// which is made undumpable (not readable through /proc by processes of the same user).
package procinit

import (
	"bytes"
	"errors"
	"strings"

	"github.com/agentv/action/internal/proc"
)

// fdVar names the inherited descriptor that carries the moved tokens.
const fdVar = "AGENTV_SECRETS_FD"

// Secrets are the variables moved out of the environment, by name.
type Secrets map[string]string

// split separates the token variables from the rest of env.
func split(env []string) (rest []string, moved Secrets) {
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if proc.IsTokenVar(name) {
			if moved == nil {
				moved = Secrets{}
			}
			moved[name] = val
			continue
		}
		rest = append(rest, kv)
	}
	return rest, moved
}

// encode writes NAME=VALUE entries, each ended by a NUL byte (which no variable can hold).
func (s Secrets) encode() []byte {
	var b bytes.Buffer
	for k, v := range s {
		b.WriteString(k + "=" + v)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func decode(data []byte) (Secrets, error) {
	s := Secrets{}
	for len(data) > 0 {
		i := bytes.IndexByte(data, 0)
		if i < 0 {
			return nil, errors.New("truncated entry")
		}
		name, val, ok := strings.Cut(string(data[:i]), "=")
		if !ok || name == "" {
			return nil, errors.New("malformed entry")
		}
		s[name] = val
		data = data[i+1:]
	}
	return s, nil
}

// Environ returns env with the moved variables added back: what agentv itself reads (the
// Action's github-token input, `${{ GITHUB_TOKEN }}`). Child processes get them only
// where a target references one (proc.ChildEnv).
func (s Secrets) Environ(env []string) []string {
	out := make([]string, 0, len(env)+len(s))
	for _, kv := range env {
		name := kvName(kv)
		if _, moved := s[name]; !moved && name != fdVar {
			out = append(out, kv)
		}
	}
	for k, v := range s {
		out = append(out, k+"="+v)
	}
	return out
}

// Getenv returns a lookup that sees the moved variables, else getenv's.
func (s Secrets) Getenv(getenv func(string) string) func(string) string {
	return func(name string) string {
		if v, ok := s[name]; ok {
			return v
		}
		if name == fdVar {
			return ""
		}
		return getenv(name)
	}
}

func kvName(kv string) string {
	name, _, _ := strings.Cut(kv, "=")
	return name
}
