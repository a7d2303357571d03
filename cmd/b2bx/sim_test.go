package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/syncbuf"

	"github.com/stretchr/testify/require"
)

// simRun is a running `b2bx sim` in-process.
type simRun struct {
	out    *bufio.Reader
	stderr *syncbuf.Buffer
	cancel context.CancelFunc
	code   chan int
	drain  sync.Once
}

func startSim(t *testing.T, args ...string) *simRun {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	r := &simRun{out: bufio.NewReader(pr), stderr: &syncbuf.Buffer{}, cancel: cancel, code: make(chan int, 1)}
	e := &env{stdin: strings.NewReader(""), stdout: pw, stderr: r.stderr, getenv: func(string) string { return "" }}
	go func() {
		code := run(ctx, e, append([]string{"sim"}, args...))
		_ = pw.Close()
		r.code <- code
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

func (r *simRun) line(t *testing.T) string {
	t.Helper()
	l, err := r.out.ReadString('\n')
	require.NoError(t, err, "stderr: %s", r.stderr.String())
	return l
}

func (r *simRun) stop(t *testing.T) int {
	t.Helper()
	r.cancel()
	r.drain.Do(func() { go func() { _, _ = io.Copy(io.Discard, r.out) }() })
	select {
	case c := <-r.code:
		r.code <- c
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not stop")
		return -1
	}
}

func TestSimJSONFirstLine(t *testing.T) {
	r := startSim(t, "--json", "--seed", "demo", "--large", "2")
	first := r.line(t)
	// Exactly the documented shape: no other keys.
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(first), &raw))
	require.Len(t, raw, 2)
	var conns []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw["connections"], &conns))
	require.Len(t, conns, 2)
	for _, c := range conns {
		require.Len(t, c, 5)
		for _, k := range []string{"name", "connectionId", "keyId", "secret", "scopes"} {
			require.Contains(t, c, k)
		}
	}
	var doc simJSON
	require.NoError(t, json.Unmarshal([]byte(first), &doc))
	require.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, doc.BaseURL)
	require.Equal(t, "acme-de", doc.Connections[0].Name)
	require.Equal(t, "acme-at", doc.Connections[1].Name)
	require.Len(t, doc.Connections[0].Scopes, 5)

	var extra simExtraJSON
	require.NoError(t, json.Unmarshal([]byte(r.line(t)), &extra))
	require.Len(t, extra.ExtraKeys, 4)
	require.Len(t, extra.Faulty, 3)
	require.NotNil(t, extra.Large)
	require.Len(t, extra.LargeAll, 2)
	require.Equal(t, *extra.Large, extra.LargeAll[0])
	require.Equal(t, 130, extra.Entries)

	c := doc.Connections[0]
	req, err := http.NewRequest(http.MethodGet, doc.BaseURL+"/api/v1/b2b-exchange/partner/connections/"+c.ConnectionID+"/mailbox?limit=100", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.KeyID+":"+c.Secret)
	req.Header.Set("X-Correlation-ID", "sim-test-42")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, list.Data, 66, "64 deliveries and two large ones")

	require.Equal(t, exitOK, r.stop(t))
	logs := r.stderr.String()
	require.Contains(t, logs, "correlationId=sim-test-42")
	require.Contains(t, logs, "status=200")
	require.Contains(t, logs, "shutting down")
	require.NotContains(t, logs, c.Secret, "stderr never holds a secret")
}

func TestSimHumanOutputAndEmptySeed(t *testing.T) {
	r := startSim(t, "--seed", "empty")
	var out strings.Builder
	for !strings.Contains(out.String(), "Serving until Ctrl-C.") {
		out.WriteString(r.line(t))
	}
	text := out.String()
	require.Contains(t, text, "Partner API simulator on http://127.0.0.1:")
	require.Contains(t, text, "(0 deliveries)")
	require.Contains(t, text, "printed on purpose")
	require.Regexp(t, `export B2BX_API_KEY=key-acme-de-all:sk_[0-9a-f]{64}\n`, text)
	require.Contains(t, text, "b2bx mailbox ls --url http://127.0.0.1:")
	require.Contains(t, text, "upload only   key-acme-de-inbox:")
	require.Equal(t, exitOK, r.stop(t))
}

// TestSimEntries: --entries N puts N more deliveries on acme-de, listed
// through every cursor page (here with --seed empty: only those).
func TestSimEntries(t *testing.T) {
	r := startSim(t, "--json", "--seed", "empty", "--entries", "10000")
	var doc simJSON
	require.NoError(t, json.Unmarshal([]byte(r.line(t)), &doc))
	var extra simExtraJSON
	require.NoError(t, json.Unmarshal([]byte(r.line(t)), &extra))
	require.Equal(t, 10000, extra.Bulk)
	require.Equal(t, 10000, extra.Entries)
	c := doc.Connections[0]
	n, pages, cursor := 0, 0, ""
	for {
		req, err := http.NewRequest(http.MethodGet, doc.BaseURL+"/api/v1/b2b-exchange/partner/connections/"+c.ConnectionID+"/mailbox?limit=100"+cursor, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+c.KeyID+":"+c.Secret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var list struct {
			Data []json.RawMessage `json:"data"`
			Meta struct {
				HasMore    bool   `json:"hasMore"`
				NextCursor string `json:"nextCursor"`
			} `json:"meta"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		resp.Body.Close()
		n += len(list.Data)
		pages++
		if !list.Meta.HasMore {
			break
		}
		cursor = "&cursor=" + list.Meta.NextCursor
	}
	require.Equal(t, 10000, n)
	require.Equal(t, 100, pages)
	require.Equal(t, exitOK, r.stop(t))
}

func TestSimHTTP2WithCAFile(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	r := startSim(t, "--json", "--http2", "--seed", "empty", "--ca-file", ca)
	var doc simJSON
	require.NoError(t, json.Unmarshal([]byte(r.line(t)), &doc))
	require.True(t, strings.HasPrefix(doc.BaseURL, "https://127.0.0.1:"))
	var extra simExtraJSON
	require.NoError(t, json.Unmarshal([]byte(r.line(t)), &extra))
	require.Equal(t, ca, extra.CAFile)
	pemBytes, err := os.ReadFile(ca)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes))
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	c := doc.Connections[1]
	req, err := http.NewRequest(http.MethodGet, doc.BaseURL+"/api/v1/b2b-exchange/partner/connections/"+c.ConnectionID+"/mailbox", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.KeyID+":"+c.Secret)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 2, resp.ProtoMajor)
	require.Equal(t, exitOK, r.stop(t))
}

func TestSimUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "--addr", "0.0.0.0:0"},
		{"sim", "--addr", "192.168.1.10:8080"},
		{"sim", "--addr", "example.com:80"},
		{"sim", "--addr", "nonsense"},
		{"sim", "--seed", "prod"},
		{"sim", "--large", "-1"},
		{"sim", "--entries", "-1"},
		{"sim", "--entries", "1000001"},
		{"sim", "extra"},
		{"sim", "--bogus"},
	} {
		code, stdout, stderr := runCmd(t, "", nil, args...)
		require.Equal(t, exitUsage, code, args)
		require.Empty(t, stdout, args)
		require.NotEmpty(t, stderr, args)
	}
	code, _, stderr := runCmd(t, "", nil, "sim", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, stderr, "prints a secret, on purpose")
}

func TestParseByteRate(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "100000": 100000, "500KiB": 500 << 10, "2MiB": 2 << 20, "3M": 3 << 20, "64K": 64 << 10} {
		got, err := parseByteRate(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"fast", "-5", "0", "2GB", "1.5MiB", "MiB"} {
		_, err := parseByteRate(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "bytes per second")
	}
	code, _, errOut := runCmd(t, "", nil, "sim", "--throttle", "fast")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--throttle")
}
