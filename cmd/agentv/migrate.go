package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/migrate"
)

// migrateCmd rewrites an AgentV 2.5 or 4.x eval file, or a targets file, for AgentV 5.x:
// the file on stdout (or --write in place, -o elsewhere), what changed and what needs a
// human on stderr.
func (c *Command) migrateCmd(args []string) int {
	fs := flag.NewFlagSet("agentv migrate", flag.ContinueOnError)
	write := fs.Bool("write", false, "replace the file with its 5.x form (atomically) instead of printing it")
	out := fs.String("o", "", "write the 5.x form to this file instead of printing it")
	paths, code, ok := parseCommand(fs, "agentv migrate [--write | -o OUT] FILE", args, c.Stdout, c.Stderr)
	if !ok {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintln(c.Stderr, "agentv migrate: "+logtext.Line(fmt.Sprintf(format, args...)))
		return gate.ExitInvalid
	}
	switch {
	case len(paths) != 1:
		return fail("give exactly one eval or targets file, got %d", len(paths))
	case *write && *out != "":
		return fail("--write and -o both say where the result goes; give one")
	}
	path := paths[0]
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(c.Cwd, abs)
	}
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fail("%s: no such file", path)
		}
		return fail("%v", err)
	}
	res, err := migrate.File(path, src)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprint(c.Stderr, logtext.Block(res.Report(path)))
	switch {
	case *write:
		if !res.Changed {
			return 0
		}
		// Through a symbolic link the file it names is replaced, not the link.
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		fi, statErr := os.Stat(abs)
		if err := atomicfile.WriteFile(abs, func(w io.Writer) error { _, err := w.Write(res.Out); return err }); err != nil {
			return fail("writing %s: %v", path, err)
		}
		if statErr == nil { // the new file keeps the old one's permissions
			_ = os.Chmod(abs, fi.Mode().Perm())
		}
	case *out != "":
		dest := *out
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(c.Cwd, dest)
		}
		if err := atomicfile.Replace(dest, res.Out); err != nil {
			return fail("writing %s: %v", *out, err)
		}
	default:
		if _, err := c.Stdout.Write(res.Out); err != nil {
			return fail("writing the result: %v", err)
		}
	}
	return 0
}
