package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// needTool finds a shell; missing, the test skips unless
// B2BX_REQUIRE_TOOLS=1 (CI installs them).
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("B2BX_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is required (B2BX_REQUIRE_TOOLS=1): %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, errOut := runCmd(t, "", nil, "completion", shell)
	require.Equal(t, exitOK, code, errOut)
	p := filepath.Join(t.TempDir(), "b2bx."+shell)
	require.NoError(t, os.WriteFile(p, []byte(out), 0o600))
	return p
}

func TestCompletionScriptsAreValid(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			bin := needTool(t, sh)
			script := completionScript(t, sh)
			out, err := exec.Command(bin, "-n", script).CombinedOutput()
			require.NoError(t, err, "%s -n: %s", sh, out)
			b, _ := os.ReadFile(script)
			for _, want := range []string{"upload", "completion", "fixes", "force", "set-secret", "completion --profiles"} {
				require.Contains(t, string(b), want)
			}
		})
	}
	code, _, errOut := runCmd(t, "", nil, "completion", "tcsh")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "bash, zsh or fish")
}

// stubPath puts a fake b2bx on PATH that answers --profiles as the real
// one would for two profiles (the real one is tested below).
func stubPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	stub := "#!/bin/sh\n[ \"$1 $2\" = 'completion --profiles' ] && printf 'acme-de\\nacme-at\\n'\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b2bx"), []byte(stub), 0o700))
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

func TestBashCompletionCompletes(t *testing.T) {
	bash := needTool(t, "bash")
	script := completionScript(t, "bash")
	complete := func(line ...string) []string {
		t.Helper()
		words := make([]string, len(line))
		for i, w := range line {
			words[i] = "'" + w + "'"
		}
		prog := "source " + script + "; COMP_WORDS=(" + strings.Join(words, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(line)-1) + "; _b2bx; printf '%s\\n' \"${COMPREPLY[@]}\""
		cmd := exec.Command(bash, "--norc", "-c", prog)
		cmd.Env = append(os.Environ(), "PATH="+stubPath(t))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.Fields(string(out))
	}
	require.Contains(t, complete("b2bx", "up"), "upload")
	require.Equal(t, []string{"--version"}, complete("b2bx", "--vers"))
	require.ElementsMatch(t, []string{"rm"}, complete("b2bx", "conn", "r"))
	require.ElementsMatch(t, []string{"--fixes"}, complete("b2bx", "upload", "x.edi", "--fi"))
	require.ElementsMatch(t, []string{"acme-de", "acme-at"}, complete("b2bx", "upload", "-c", ""))
	require.ElementsMatch(t, []string{"acme-at"}, complete("b2bx", "conn", "rm", "acme-a"))
	require.Empty(t, complete("b2bx", "parse", "--nosuch"))
}

func TestFishCompletionCompletes(t *testing.T) {
	fish := needTool(t, "fish")
	script := completionScript(t, "fish")
	cmd := exec.Command(fish, "--no-config", "-c", "source "+script+"; complete -C 'b2bx upload --fi'; complete -C 'b2bx conn '; complete -C 'b2bx fetch -c '")
	cmd.Env = append(os.Environ(), "PATH="+stubPath(t))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	s := string(out)
	for _, want := range []string{"--fixes", "set-secret", "acme-de"} {
		require.Contains(t, s, want)
	}
}

func TestCompletionListsProfiles(t *testing.T) {
	c := newConnEnv(t)
	for _, n := range []string{"acme-de", "acme-at"} {
		code, _, errOut := c.run(t, "", "conn", "add", n, "--url", "https://x.example", "--connection", "c-"+n, "--key-id", "k", "--no-secret")
		require.Equal(t, exitOK, code, errOut)
	}
	code, out, errOut := c.run(t, "", "completion", "--profiles")
	require.Equal(t, exitOK, code, errOut)
	require.ElementsMatch(t, []string{"acme-de", "acme-at"}, strings.Fields(out))
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCmd(t, "", nil, args...)
		require.Equal(t, exitOK, code, errOut)
		require.True(t, strings.HasPrefix(out, "b2bx "), out)
		require.Contains(t, out, "go1.", "the Go version from the build info")
	}
	code, out, _ := runCmd(t, "", nil, "version", "--json")
	require.Equal(t, exitOK, code)
	j := decodeJSON[map[string]any](t, out)
	require.NotEmpty(t, j["goVersion"])
	require.Contains(t, j, "version")
}
