package main

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/syncbuf"
	"github.com/nutrab2b/b2bx/internal/track"
)

func TestEventListenRefusesPlainHTTPOffLoopback(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--addr", "0.0.0.0:0", "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "plain http is only allowed on a loopback address")
	require.Contains(t, errOut, "--tls-cert FILE --tls-key FILE")
}

func TestEventListenNeedsASecret(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, "", "event", "listen", "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "give the webhook secret")
}

func TestListenLineSanitisesEventText(t *testing.T) {
	r := webhook.Record{Time: time.Unix(0, 0), Senders: []string{"evil\x1b[31m"}, Types: []string{"nutrab2b.x\x9b.y.v2"},
		Answer: events.Answer{Status: 200, Result: events.ResultACK, Delivery: "000000000001.http",
			Events:   []events.EventAnswer{{Subject: "PO\x07", Sequence: 3}},
			Findings: []events.Finding{{Severity: events.SevWarning, Code: events.CodeDuplicate, Platform: events.NBDuplicate}}}}
	line := listenLine(r)
	require.NotContains(t, line, "\x1b")
	require.NotContains(t, line, "\x9b")
	require.NotContains(t, line, "\x07")
	require.True(t, strings.Contains(line, "DUPLICATE/NB-E005~"), line)
	require.Contains(t, line, "000000000001.http")
}

// TestEventListenCanary runs event listen in-process (human and --json
// output), sends good, repeated, badly signed and stale deliveries, stops
// it, and finds the secret in no output and no capture file; a restart
// replays the captures.
func TestEventListenCanary(t *testing.T) {
	dir := t.TempDir()
	for _, asJSON := range []bool{false, true} {
		stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		e := &env{stdin: strings.NewReader(eventCanary + "\n"), stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }}
		args := []string{"event", "listen", "--secret-stdin", "--addr", "127.0.0.1:0", "--dir", dir}
		if asJSON {
			args = append(args, "--json")
		}
		ctx, cancel := context.WithCancel(context.Background())
		addr, done := startListen(t, ctx, e, stderr, args)
		body, err := os.ReadFile(evTestdata + "valid_event.json")
		require.NoError(t, err)
		send := func(sec string, ts int64) int {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
			req.Header.Set(events.SignatureHeader, events.Sign(secret.New(sec), ts, body))
			req.Header.Set("Authorization", "Bearer "+eventCanary) // a sender's credential is never captured
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		now := time.Now().Unix()
		require.Equal(t, http.StatusOK, send(eventCanary, now)) // after the restart: DUPLICATE, also 200
		require.Equal(t, http.StatusOK, send(eventCanary, now))
		require.Equal(t, http.StatusUnauthorized, send("wrong", now))
		require.Equal(t, http.StatusUnauthorized, send(eventCanary, now-1000))
		cancel()
		require.Equal(t, exitOK, <-done, stderr.String())
		out := stdout.String()
		require.Contains(t, out, "DUPLICATE")
		require.Contains(t, out, "NB-E008")
		if asJSON {
			require.False(t, strings.Contains(out, `"status":200,"result":"ACK"`), "after the restart the first delivery is a DUPLICATE")
			require.Contains(t, stderr.String(), "2 earlier deliveries replayed")
		}
		for _, hay := range []string{out, stderr.String()} {
			require.NotContains(t, hay, eventCanary)
		}
	}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NotContains(t, string(b), eventCanary, p)
		}
		return nil
	}))
}

func TestEventListenKeepAndJWKSFlags(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--keep", "2h", "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "shorter than the delivery rules' retry schedule")
	code, _, errOut = ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--jwks", filepath.Join(t.TempDir(), "none.json"), "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--jwks: JWKS")
	code, _, errOut = ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--jwks", "123=x.json", "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "is not a GLN")
	require.NotContains(t, errOut, eventCanary)
}

// TestEventListenIndexesWhatItCommits: a delivery event listen ACKs is in
// the tracking index when the listener stops, its event in its order's
// conversation, without an event inspect (issue 23 §2).
func TestEventListenIndexesWhatItCommits(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	vars := map[string]string{"B2BX_DATA_DIR": data, credentials.EnvConfig: filepath.Join(t.TempDir(), "profiles.toml")}
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	e := &env{stdin: strings.NewReader(eventCanary + "\n"), stdout: stdout, stderr: stderr, getenv: func(k string) string { return vars[k] }}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startListen(t, ctx, e, stderr, []string{"event", "listen", "--secret-stdin", "--addr", "127.0.0.1:0", "--dir", dir})
	postValidEvent(t, addr)
	cancel()
	require.Equal(t, exitOK, <-done, stderr.String())
	track.WaitIdle()

	code, out, errOut := runCmd(t, "", vars, "find", "po:PO-4711", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `"ref": "evt-0001"`, "the committed event is indexed with its order")
}

// startListen runs b2bx with args (an event listen) in-process and waits
// for the address it says it receives on; done gets its exit code.
func startListen(t *testing.T, ctx context.Context, e *env, stderr *syncbuf.Buffer, args []string) (addr string, done chan int) {
	t.Helper()
	done = make(chan int, 1)
	go func() { done <- run(ctx, e, args) }()
	addrRE := regexp.MustCompile(`receiving on http://(127\.0\.0\.1:\d+)`)
	require.Eventually(t, func() bool {
		m := addrRE.FindStringSubmatch(stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	}, 20*time.Second, 5*time.Millisecond, "no address on stderr: %s", stderr)
	return addr, done
}

// postValidEvent delivers testdata's valid event, signed with the canary
// secret, to the listener at addr and requires its 200.
func postValidEvent(t *testing.T, addr string) {
	t.Helper()
	body, err := os.ReadFile(evTestdata + "valid_event.json")
	require.NoError(t, err)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
	req.Header.Set(events.SignatureHeader, events.Sign(secret.New(eventCanary), time.Now().Unix(), body))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
