//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"
)

// simConn is one connection (or extra key) from `b2bx sim --json`.
type simConn struct {
	Name         string   `json:"name"`
	ConnectionID string   `json:"connectionId"`
	KeyID        string   `json:"keyId"`
	Secret       string   `json:"secret"`
	Scopes       []string `json:"scopes"`
}

// simEntry names a notable mailbox entry (the large one, the faulty ones).
type simEntry struct {
	ConnectionID      string `json:"connectionId"`
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	What              string `json:"what"`
}

// simProc is a running `b2bx sim --json` subprocess.
type simProc struct {
	URL         string
	Connections []simConn
	ExtraKeys   []simConn
	Large       *simEntry
	Faulty      []simEntry
	Entries     int

	log *syncbuf.Buffer // the request log (stderr)
}

// startSim runs `b2bx sim --json ARGS` until the test ends (SIGTERM, then
// kill), reads its two JSON lines and registers every secret as a canary.
func startSim(t *testing.T, w *world, args ...string) *simProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--json"}, args...)...)
	cmd.Env = w.env
	cmd.Dir = w.dir
	s := &simProc{log: &syncbuf.Buffer{}}
	cmd.Stderr = s.log
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if len(got) < 2 {
				got = append(got, sc.Text())
				if len(got) == 2 {
					lines <- got
				}
			}
		}
		if len(got) < 2 {
			lines <- got
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	var got []string
	select {
	case got = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("b2bx sim printed no JSON lines in 30s; stderr:\n%s", s.log)
	}
	require.Len(t, got, 2, "b2bx sim --json prints two lines; stderr:\n%s", s.log)

	var first struct {
		BaseURL     string    `json:"baseURL"`
		Connections []simConn `json:"connections"`
	}
	require.NoError(t, json.Unmarshal([]byte(got[0]), &first), "first line")
	var second struct {
		ExtraKeys []simConn  `json:"extraKeys"`
		Large     *simEntry  `json:"large"`
		Faulty    []simEntry `json:"faulty"`
		Entries   int        `json:"entries"`
	}
	require.NoError(t, json.Unmarshal([]byte(got[1]), &second), "second line")
	require.NotEmpty(t, first.BaseURL)
	require.NotEmpty(t, first.Connections)
	s.URL, s.Connections = first.BaseURL, first.Connections
	s.ExtraKeys, s.Large, s.Faulty, s.Entries = second.ExtraKeys, second.Large, second.Faulty, second.Entries
	for _, c := range append(append([]simConn{}, s.Connections...), s.ExtraKeys...) {
		w.addSecret(c.Secret)
	}
	return s
}

// conn returns the connection of that name.
func (s *simProc) conn(t *testing.T, name string) simConn {
	t.Helper()
	for _, c := range s.Connections {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the simulator has no connection %q", name)
	return simConn{}
}

// apiKeyEnv is the B2BX_API_KEY environment entry for a connection's key.
func apiKeyEnv(c simConn) []string {
	return []string{"B2BX_API_KEY=" + c.KeyID + ":" + c.Secret}
}

// connFlags selects the connection with --url/--connection.
func (s *simProc) connFlags(c simConn) []string {
	return []string{"--url", s.URL, "--connection", c.ConnectionID}
}

// simRequest is one line of the simulator's request log.
type simRequest struct {
	Method, Path string
	Status       int
}

// Action is the last path element: mailbox, claim, payload, acknowledge, inbox.
func (r simRequest) Action() string { return r.Path[strings.LastIndexByte(r.Path, '/')+1:] }

var requestLine = regexp.MustCompile(`msg=request method=(\S+) path=(\S+) status=(\d+)`)

// requests returns the logged requests whose path contains substr.
func (s *simProc) requests(substr string) []simRequest {
	var out []simRequest
	for _, m := range requestLine.FindAllStringSubmatch(s.log.String(), -1) {
		if !strings.Contains(m[2], substr) {
			continue
		}
		status, _ := strconv.Atoi(m[3]) // \d+ from the regexp
		out = append(out, simRequest{Method: m[1], Path: m[2], Status: status})
	}
	return out
}

// actions lists "ACTION STATUS" for the logged requests whose path contains substr.
func (s *simProc) actions(substr string) []string {
	var out []string
	for _, r := range s.requests(substr) {
		out = append(out, r.Action()+" "+strconv.Itoa(r.Status))
	}
	return out
}
