package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/stretchr/testify/require"
)

// runCmd runs b2bx in-process with the given stdin and environment.
func runCmd(t testing.TB, stdin string, envv map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		stdin:  bytes.NewBufferString(stdin),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string { return envv[k] },
	}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestParseFlagsInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	j := fs.Bool("json", false, "")
	pos, err := parseFlags(fs, []string{"a.edi", "--json", "-", "--", "--weird"})
	require.NoError(t, err)
	require.True(t, *j)
	require.Equal(t, []string{"a.edi", "-", "--weird"}, pos)
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runCmd(t, "", nil, "frobnicate")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "unknown command")
}
