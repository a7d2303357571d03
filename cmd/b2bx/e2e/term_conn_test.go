//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTerminalConnAddSecretNoEcho types an API key secret into the no-echo
// prompt of `b2bx conn add` in tmux. The pane's shell runs inside
// .ci/keyring-session: a private D-Bus session with a throwaway, unlocked
// gnome-keyring, so the user's own keyring is never touched. The secret is
// the simulator's real one, so `conn test` and `mailbox ls -c` succeeding
// proves the keyring holds exactly what was typed; the whole scrollback
// and the profile file must not show it.
func TestTerminalConnAddSecretNoEcho(t *testing.T) {
	t.Parallel()
	requireTool(t, "B2BX_KEYRING_IT", "gnome-keyring-daemon", "dbus-run-session", "dbus-send")
	w := newWorld(t)
	s := startSim(t, w)
	de := s.conn(t, "acme-de")

	session := filepath.Join(repoRoot, ".ci", "keyring-session")
	// keyring-session is a bash script, and a non-interactive bash drops
	// PS1; the wrapper reports keyring-session's exit code on the pane.
	p := newPane(t, w, 120, 40, nil, "bash", "-c", `"$0" "$@"; echo "__session_end rc=$?"`,
		session, "env", "PS1="+prompt, "bash", "--norc", "--noprofile")
	code, h := p.run(`[ -n "$DBUS_SESSION_BUS_ADDRESS" ] && [ "${DBUS_SESSION_BUS_ADDRESS#disabled:}" = "$DBUS_SESSION_BUS_ADDRESS" ]`, 10*time.Second)
	require.Equal(t, 0, code, "the pane's shell runs on keyring-session's private bus:\n%s", h)

	// Control: text typed into an ordinary (echoing) read shows on the pane.
	// read prints its prompt once it reads: typing before that could land
	// while the shell still sets the terminal up, and the echo be lost.
	m := p.start("read -r -p 'control> ' typed")
	p.waitFor("the control prompt", 10*time.Second, func(h string) bool { return strings.Contains(sinceMarker(h, m), "control> ") })
	p.send("echoed-typing-control")
	code, h = p.wait(m, 10*time.Second)
	require.Equal(t, 0, code)
	require.Contains(t, sinceMarker(h, m), "echoed-typing-control", "control: typed text is echoed without a no-echo prompt")

	m = p.start(shellCmd(bin, "conn", "add", "demo", "--url", s.URL, "--connection", de.ConnectionID, "--key-id", de.KeyID))
	p.waitFor("the secret prompt", 30*time.Second, func(h string) bool { return strings.Contains(h, "Secret for") })
	p.send(de.Secret)
	code, h = p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "conn add:\n%s", sinceMarker(h, m))

	code, h = p.run(shellCmd(bin, "conn", "ls"), 30*time.Second)
	require.Equal(t, 0, code, h)
	require.Contains(t, h, "demo")
	code, h = p.run(shellCmd(bin, "conn", "test", "demo"), 30*time.Second)
	require.Equal(t, 0, code, "conn test: the keyring holds the typed secret\n%s", h)
	m = p.start(shellCmd(bin, "mailbox", "ls", "-c", "demo", "--limit", "1", "--json"))
	code, h = p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, h)
	require.Contains(t, sinceMarker(h, m), `"deliveryAttemptId"`, "the profile reads the mailbox with the keyring's secret")

	// The secret never reached the screen: not whole, and no 12-character
	// piece of it (a wrapped or partly echoed secret).
	full := p.history()
	w.requireNoSecret(t, "the pane's scrollback", full)
	for i := 0; i+12 <= len(de.Secret); i++ {
		if piece := de.Secret[i : i+12]; strings.Contains(full, piece) {
			t.Fatalf("the pane shows a piece of the secret at offset %d", i)
		}
	}

	// The profile was written, owner-only, without the secret.
	b, err := os.ReadFile(w.config)
	require.NoError(t, err, "conn add writes the profile file")
	for _, want := range []string{"demo", s.URL, de.ConnectionID, de.KeyID} {
		require.Contains(t, string(b), want)
	}
	w.requireNoSecret(t, "the profile file", string(b))
	st, err := os.Stat(w.config)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	w.requireNoSecretOnDisk(t)

	// Leaving the shell ends the keyring session: keyring-session stops the
	// daemon, the bus ends with dbus-run-session, the temp keyring is removed.
	p.send("exit")
	h = p.waitFor("the keyring session to end", 30*time.Second, func(h string) bool { return strings.Contains(h, "__session_end rc=") })
	require.Contains(t, h, "__session_end rc=0", "keyring-session exits cleanly")
}
