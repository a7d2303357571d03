package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/cmddoc"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/commands.md from the command docs")

// TestEveryCommandHasDoc: a command without synopsis, examples and exit
// codes (or a doc for a command that is gone) fails here.
func TestEveryCommandHasDoc(t *testing.T) {
	var docs []string
	for _, d := range cmddoc.All() {
		docs = append(docs, d.Name)
		require.NotEmpty(t, d.Synopsis, d.Name)
		require.NotEmpty(t, d.Examples, d.Name)
		require.NotEmpty(t, d.Exits, d.Name)
		require.Equal(t, exitOK, d.Exits[0].Code, "%s: exit codes in ascending order, 0 first", d.Name)
		for i, x := range d.Exits {
			require.Contains(t, []int{exitOK, exitFileError, exitUsage, exitAPI, exitIntegrity, exitStorage, exitInterrupted}, x.Code, d.Name)
			if i > 0 {
				require.Greater(t, x.Code, d.Exits[i-1].Code, "%s: exit codes in ascending order", d.Name)
			}
		}
		if d.Topic != "" {
			_, err := os.Stat("../../docs/" + d.Topic)
			require.NoError(t, err, "%s: its topic docs/%s", d.Name, d.Topic)
		}
	}
	require.Equal(t, commandNames(), docs)
}

// TestHelpFetch: `b2bx help fetch` and `b2bx fetch -h` show the same
// synopsis, flags, examples and exit codes.
func TestHelpFetch(t *testing.T) {
	code, out, errOut := runCmd(t, "", nil, "help", "fetch")
	require.Equal(t, exitOK, code)
	require.Empty(t, errOut)
	for _, want := range []string{
		"usage: b2bx fetch [flags] (ID | --next | --all --ack)",
		"synopsis:\n  b2bx fetch ID [--ack] [--out DIR] [--json]\n  b2bx fetch --next",
		"flags:\n  -ack\n",
		"examples:\n  # the head of the mailbox",
		"  b2bx fetch --next --ack -c acme-de\n",
		"exit codes:\n  0    done",
		"  4    the payload failed an integrity check or broke off mid-stream; nothing was acknowledged\n",
		"  130  a second Ctrl-C",
		"more: docs/mailbox.md",
	} {
		require.Contains(t, out, want)
	}
	code, stdout, stderr := runCmd(t, "", nil, "fetch", "-h")
	require.Equal(t, exitOK, code)
	require.Empty(t, stdout)
	require.Equal(t, out, stderr)
}

// TestHelpEveryCommand: every command's -h has its examples and exit
// codes, and equals `b2bx help CMD`, also for the commands that write
// their own usage text (sim, demo, event listen).
func TestHelpEveryCommand(t *testing.T) {
	for _, n := range commandNames() {
		code, out, _ := runCmd(t, "", nil, append([]string{"help"}, strings.Fields(n)...)...)
		require.Equal(t, exitOK, code, n)
		require.Contains(t, out, "usage: b2bx "+n, n)
		require.Contains(t, out, "\nexamples:\n", n)
		require.Contains(t, out, "\nexit codes:\n  0  ", n)
		if n == "completion" || n == "version" {
			continue // they take -h too, but that is the same path
		}
		_, _, errOut := runCmd(t, "", nil, append(strings.Fields(n), "-h")...)
		require.Equal(t, out, errOut, n)
	}
	code, _, errOut := runCmd(t, "", nil, "help", "no-such")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `unknown command "no-such"`)
}

// TestDocExamplesUseRealFlags: every flag a synopsis or an example names
// is a flag of that command, so a renamed flag cannot leave a stale doc.
func TestDocExamplesUseRealFlags(t *testing.T) {
	flags := map[string]map[string]bool{}
	for _, s := range commandSpecs() {
		flags[s.name] = map[string]bool{}
		for _, f := range s.flags {
			flags[s.name][f.name] = true
		}
	}
	for _, d := range cmddoc.All() {
		lines := append([]string(nil), d.Synopsis...)
		for _, e := range d.Examples {
			if d.Name != "app" || e.Cmd != "" {
				require.True(t, strings.HasPrefix(e.Cmd+" ", d.Name+" "), "%s: example %q runs another command", d.Name, e.Cmd)
			}
			lines = append(lines, e.Cmd)
		}
		for _, l := range lines {
			if i := strings.Index(l, "<"); i >= 0 {
				l = l[:i] // "< secret.txt" is the shell's
			}
			for _, w := range strings.Fields(l) {
				w = strings.Trim(w, "[]()|")
				if !strings.HasPrefix(w, "-") || w == "-" || strings.HasPrefix(w, "'") {
					continue
				}
				name := strings.TrimLeft(w, "-")
				name, _, _ = strings.Cut(name, "=")
				if d.Name == "version" && name == "version" {
					continue // b2bx --version is the top level's
				}
				require.True(t, flags[d.Name][name], "%s: %q in %q is not one of its flags", d.Name, w, l)
			}
		}
	}
}

// TestCommandsDoc: docs/commands.md is what the command docs generate.
// After changing a command's flags or doc: go generate ./cmd/b2bx.
func TestCommandsDoc(t *testing.T) {
	const path = "../../docs/commands.md"
	got := commandsDoc()
	if *updateDocs {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	requireSameDoc(t, "docs/commands.md", string(want), got, "go generate ./cmd/b2bx")
}

// requireSameDoc fails with the first line where the committed doc and
// the generated one differ (not both whole files).
func requireSameDoc(t *testing.T, name, committed, generated, regenerate string) {
	t.Helper()
	if committed == generated {
		return
	}
	c, g := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	i := 0
	for i < len(c) && i < len(g) && c[i] == g[i] {
		i++
	}
	at := func(l []string) string {
		if i < len(l) {
			return l[i]
		}
		return "(end of file)"
	}
	t.Fatalf("%s is stale from line %d: run %s\ncommitted: %s\ngenerated: %s", name, i+1, regenerate, at(c), at(g))
}
