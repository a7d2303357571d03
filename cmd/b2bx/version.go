package main

import (
	"context"
	"fmt"

	"github.com/nutrab2b/b2bx/internal/buildinfo"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "version", summary: "print the module version, commit and Go version (also b2bx --version)", run: runVersion})
}

// readBuildInfo is replaced by tests.
var readBuildInfo = buildinfo.Read

func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "version", "")
	asJSON := fs.Bool("json", false, "print JSON: {module, version, commit, time, modified, goVersion, platform}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, "version", *asJSON, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0])))
	}
	in := readBuildInfo()
	if *asJSON {
		return emitJSON(e, "version", in)
	}
	fmt.Fprintln(e.stdout, in.String())
	return exitOK
}
