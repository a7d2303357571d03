package apiclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// payloadServer serves body like the contract's payload endpoint, shaped
// by the fields.
type payloadServer struct {
	body       []byte
	send       int    // bytes of body to send; -1 = all
	extra      []byte // sent after body
	sizeHeader string // "" = correct; "-" = omit
	hashHeader string // "" = correct; "-" = omit
	trailer    string // "-" = none
	abort      bool   // cut the connection after sending
	block      bool   // stop sending and wait for the client to go away
}

func (s payloadServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sum := sha256.Sum256(s.body)
	size, hash := strconv.Itoa(len(s.body)), hex.EncodeToString(sum[:])
	if s.sizeHeader != "" {
		size = s.sizeHeader
	}
	if s.hashHeader != "" {
		hash = s.hashHeader
	}
	if size != "-" {
		w.Header().Set(HeaderPayloadSize, size)
	}
	if hash != "-" {
		w.Header().Set(HeaderPayloadSHA256, hash)
	}
	if s.trailer != "-" {
		w.Header().Set("Trailer", TrailerPayloadIntegrity)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/edifact")
	w.WriteHeader(http.StatusOK)
	n := len(s.body)
	if s.send >= 0 {
		n = s.send
	}
	_, _ = w.Write(s.body[:n])
	_, _ = w.Write(s.extra)
	http.NewResponseController(w).Flush()
	if s.block {
		<-r.Context().Done()
		return
	}
	if s.abort {
		panic(http.ErrAbortHandler)
	}
	if s.trailer != "-" {
		w.Header().Set(TrailerPayloadIntegrity, s.trailer)
	}
}

func testPayload(n int) []byte {
	return bytes.Repeat([]byte("UNH+1+ORDRSP:D:96A:UN'"), n/22+1)[:n]
}

func sumHex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func failedNames(r *IntegrityReport) []string {
	var names []string
	for _, c := range r.Failed() {
		names = append(names, c.Name)
	}
	return names
}

// TestDownloadFaultMatrix: every fault fails the download and the report
// names exactly the checks that failed.
func TestDownloadFaultMatrix(t *testing.T) {
	body := testPayload(100_000)
	exp := Expect{Size: int64(len(body)), SHA256: sumHex(body)}
	other := sumHex([]byte("other"))
	tests := []struct {
		name    string
		srv     payloadServer
		expect  Expect
		failed  []string
		readErr bool
	}{
		{"ok", payloadServer{send: -1, trailer: "verified"}, exp, nil, false},
		{"upper-case hex in header and listing", payloadServer{send: -1, trailer: "verified", hashHeader: strings.ToUpper(exp.SHA256)}, Expect{exp.Size, strings.ToUpper(exp.SHA256)}, nil, false},
		{"truncated, honest trailer", payloadServer{send: 5000, trailer: "failed"}, exp, []string{CheckSizeHeader, CheckSizeListing, CheckHashHeader, CheckHashListing, CheckTrailer}, false},
		{"truncated, lying trailer", payloadServer{send: 5000, trailer: "verified"}, exp, []string{CheckSizeHeader, CheckSizeListing, CheckHashHeader, CheckHashListing}, false},
		{"wrong size header", payloadServer{send: -1, trailer: "verified", sizeHeader: strconv.Itoa(len(body) + 1)}, exp, []string{CheckSizeHeader}, false},
		{"missing size header", payloadServer{send: -1, trailer: "verified", sizeHeader: "-"}, exp, []string{CheckSizeHeader}, false},
		{"garbage size header", payloadServer{send: -1, trailer: "verified", sizeHeader: "12kB"}, exp, []string{CheckSizeHeader}, false},
		{"wrong hash header", payloadServer{send: -1, trailer: "verified", hashHeader: other}, exp, []string{CheckHashHeader}, false},
		{"missing hash header", payloadServer{send: -1, trailer: "verified", hashHeader: "-"}, exp, []string{CheckHashHeader}, false},
		{"listing size mismatch", payloadServer{send: -1, trailer: "verified"}, Expect{exp.Size - 1, exp.SHA256}, []string{CheckSizeListing}, false},
		{"listing hash mismatch", payloadServer{send: -1, trailer: "verified"}, Expect{exp.Size, other}, []string{CheckHashListing}, false},
		{"no listing given", payloadServer{send: -1, trailer: "verified"}, Expect{}, []string{CheckSizeListing, CheckHashListing}, false},
		{"trailer failed", payloadServer{send: -1, trailer: "failed"}, exp, []string{CheckTrailer}, false},
		{"trailer garbage", payloadServer{send: -1, trailer: "verified-ish"}, exp, []string{CheckTrailer}, false},
		{"no trailer", payloadServer{send: -1, trailer: "-"}, exp, []string{CheckTrailer}, false},
		{"reset mid-body", payloadServer{send: 50_000, trailer: "verified", abort: true}, exp, []string{CheckSizeHeader, CheckSizeListing, CheckHashHeader, CheckHashListing, CheckTrailer}, true},
		{"reset after all bytes", payloadServer{send: -1, trailer: "verified", abort: true}, exp, []string{CheckTrailer}, true},
		// The sink gets exactly the announced bytes (their hashes match), never the excess.
		{"longer than announced", payloadServer{send: -1, extra: []byte("X"), trailer: "verified"}, exp, []string{CheckSizeHeader, CheckSizeListing, CheckTrailer}, true},
		// Refused before reading: only the size that announced more than
		// 16 MiB failed; the other checks did not run (see notRun below).
		{"hostile size header", payloadServer{send: -1, extra: testPayload(1 << 20), sizeHeader: "1000000000000000", trailer: "verified"}, exp, []string{CheckSizeHeader}, true},
		{"hostile listing size", payloadServer{send: -1, trailer: "verified"}, Expect{MaxPayloadSize + 1, exp.SHA256}, []string{CheckSizeListing}, true},
	}
	notRun := map[string][]string{
		"hostile size header":  {CheckSizeListing, CheckHashHeader, CheckHashListing, CheckTrailer},
		"hostile listing size": {CheckSizeHeader, CheckHashHeader, CheckHashListing, CheckTrailer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.srv
			srv.body = body
			env := newEnv(t, srv)
			var sink bytes.Buffer
			var p Progress
			rep, err := env.c.Download(context.Background(), testClaim("d-1"), tt.expect, &sink, &p)
			require.NotNil(t, rep)
			require.Equal(t, tt.failed, failedNames(rep))
			var skipped []string
			for _, c := range rep.Checks() {
				if c.NotRun {
					require.False(t, c.OK, c.Name)
					require.Equal(t, "not run: nothing was read", c.Detail, c.Name)
					skipped = append(skipped, c.Name)
				}
			}
			require.Equal(t, notRun[tt.name], skipped, "checks that could not run")
			require.Equal(t, tt.readErr, rep.ReadErr != nil, "ReadErr: %v", rep.ReadErr)
			snap := p.Snapshot()
			require.True(t, snap.Done)
			require.Equal(t, rep.Bytes, snap.Bytes)
			require.Equal(t, int64(sink.Len()), rep.Bytes, "everything counted went to the sink")
			require.Equal(t, sumHex(sink.Bytes()), rep.SHA256, "the hash is of exactly the sink's bytes")
			if tt.failed == nil && !tt.readErr {
				require.NoError(t, err)
				require.True(t, rep.OK())
				require.Equal(t, body, sink.Bytes())
				require.Equal(t, "verified", rep.Trailer)
				return
			}
			require.False(t, rep.OK())
			var ie *IntegrityError
			require.ErrorAs(t, err, &ie)
			require.ErrorIs(t, err, ErrIntegrity)
			require.Same(t, rep, ie.Report)
			for _, name := range tt.failed {
				require.Contains(t, err.Error(), name+" failed")
			}
			require.Contains(t, err.Error(), "do not process or acknowledge")
			require.NotContains(t, env.logs.String(), rep.SHA256, "hashes are never logged")
		})
	}
}

// diskSink is a small disk: it fails once more than room bytes arrive.
type diskSink struct {
	n, room int64
}

func (d *diskSink) Write(p []byte) (int, error) {
	if d.n+int64(len(p)) > d.room {
		return 0, errors.New("disk full")
	}
	d.n += int64(len(p))
	return len(p), nil
}

// TestDownloadStopsAtMaxPayloadSize: with no size announced anywhere, a
// body that goes on is cut at 16 MiB and never reaches the sink beyond.
func TestDownloadStopsAtMaxPayloadSize(t *testing.T) {
	body := testPayload(1000)
	srv := payloadServer{body: body, send: -1, extra: make([]byte, MaxPayloadSize), sizeHeader: "-", trailer: "verified"}
	env := newEnv(t, srv)
	sink := &diskSink{room: MaxPayloadSize + 1<<20}
	rep, err := env.c.Download(context.Background(), testClaim("d-1"), Expect{}, sink, nil)
	require.ErrorIs(t, err, ErrIntegrity)
	require.NoError(t, rep.SinkErr, "the disk never filled")
	require.Equal(t, int64(MaxPayloadSize), sink.n)
	require.Equal(t, int64(MaxPayloadSize), rep.Bytes)
	require.ErrorContains(t, rep.ReadErr, "goes on past the 16777216 bytes")
}

func TestDownloadAPIErrorWritesNothing(t *testing.T) {
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, 404, CodeNotFound, "lease gone")
	}))
	var sink bytes.Buffer
	rep, err := env.c.Download(context.Background(), testClaim("d-1"), Expect{}, &sink, nil)
	require.Nil(t, rep)
	require.ErrorIs(t, err, ErrNotFound)
	require.Zero(t, sink.Len())
	_, err = env.c.Download(context.Background(), &Claim{DeliveryAttemptID: "d"}, Expect{}, &sink, nil)
	require.ErrorContains(t, err, "claim the delivery first")
}

func TestDownloadStallWatchdog(t *testing.T) {
	body := testPayload(10_000)
	env := newEnv(t, payloadServer{body: body, send: 3000, trailer: "verified", block: true},
		func(c *Config) { c.StallTimeout = 80 * time.Millisecond })
	rep, err := env.c.Download(context.Background(), testClaim("d-1"), Expect{int64(len(body)), sumHex(body)}, discard{}, nil)
	require.ErrorIs(t, err, ErrIntegrity)
	require.ErrorIs(t, err, errStalled)
	require.Equal(t, int64(3000), rep.Bytes)
	require.Contains(t, failedNames(rep), CheckTrailer)
}

func TestDownloadCancelMidStream(t *testing.T) {
	body := testPayload(10_000)
	env := newEnv(t, payloadServer{body: body, send: 3000, trailer: "verified", block: true})
	ctx, cancel := context.WithCancel(context.Background())
	var p Progress
	go func() {
		for p.Snapshot().Bytes < 3000 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	rep, err := env.c.Download(ctx, testClaim("d-1"), Expect{int64(len(body)), sumHex(body)}, discard{}, &p)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, ErrIntegrity)
	require.NotNil(t, rep.ReadErr)
	require.False(t, rep.OK())
}

type failingSink struct{ n int }

func (f *failingSink) Write(p []byte) (int, error) {
	if f.n += len(p); f.n > 1000 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestDownloadSinkError(t *testing.T) {
	body := testPayload(100_000)
	env := newEnv(t, payloadServer{body: body, send: -1, trailer: "verified"})
	rep, err := env.c.Download(context.Background(), testClaim("d-1"), Expect{int64(len(body)), sumHex(body)}, &failingSink{}, nil)
	require.ErrorIs(t, err, ErrIntegrity)
	require.ErrorContains(t, err, "disk full")
	require.Error(t, rep.SinkErr)
	require.False(t, rep.OK())
}

// TestProgressConcurrentSnapshots polls the progress from another goroutine
// during a throttled download (run with -race).
func TestProgressConcurrentSnapshots(t *testing.T) {
	body := testPayload(64 << 10)
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderPayloadSize, strconv.Itoa(len(body)))
		w.Header().Set(HeaderPayloadSHA256, sumHex(body))
		w.Header().Set("Trailer", TrailerPayloadIntegrity)
		for i := 0; i < len(body); i += 8 << 10 {
			_, _ = w.Write(body[i : i+8<<10])
			http.NewResponseController(w).Flush()
			time.Sleep(2 * time.Millisecond)
		}
		w.Header().Set(TrailerPayloadIntegrity, "verified")
	}))
	var p Progress
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var snaps []ProgressSnapshot
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				snaps = append(snaps, p.Snapshot())
				time.Sleep(time.Millisecond)
			}
		}
	})
	rep, err := env.c.Download(context.Background(), testClaim("d-1"), Expect{int64(len(body)), sumHex(body)}, discard{}, &p)
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	require.True(t, rep.OK())
	final := p.Snapshot()
	require.Equal(t, ProgressSnapshot{Bytes: int64(len(body)), Expected: int64(len(body)), Done: true}, ProgressSnapshot{Bytes: final.Bytes, Expected: final.Expected, Done: final.Done})
	require.Greater(t, final.Elapsed, time.Duration(0))
	require.Greater(t, final.BytesPerSec, 0.0)
	require.Equal(t, 1.0, final.Fraction())
	var last int64
	for _, s := range snaps {
		require.GreaterOrEqual(t, s.Bytes, last, "monotonic")
		last = s.Bytes
	}
}

func TestProgressZeroValue(t *testing.T) {
	var p Progress
	require.Equal(t, ProgressSnapshot{}, p.Snapshot())
	require.Zero(t, p.Snapshot().Fraction())
}

// TestDownloadStoppedHereIsNotRun: a download this side stopped (cancel,
// a failed write) leaves every check "not run" with the cause, not
// failed as if the partner had sent bad bytes; a stall of the server's
// stream still fails the checks.
func TestDownloadStoppedHereIsNotRun(t *testing.T) {
	body := testPayload(10_000)
	expect := Expect{int64(len(body)), sumHex(body)}
	requireNotRun := func(t *testing.T, rep *IntegrityReport, cause string) {
		t.Helper()
		require.Error(t, rep.LocalStop)
		require.Empty(t, rep.Failed(), "nothing failed")
		require.False(t, rep.OK(), "and nothing passed: never acknowledged")
		for _, c := range rep.Checks() {
			require.True(t, c.NotRun, c.Name)
			require.Contains(t, c.Detail, "not run: the download was stopped here", c.Name)
			require.Contains(t, c.Detail, cause, c.Name)
		}
	}
	t.Run("cancel", func(t *testing.T) {
		env := newEnv(t, payloadServer{body: body, send: 3000, trailer: "verified", block: true})
		ctx, cancel := context.WithCancelCause(context.Background())
		var p Progress
		go func() {
			for p.Snapshot().Bytes < 3000 {
				time.Sleep(time.Millisecond)
			}
			cancel(errors.New("esc pressed"))
		}()
		rep, err := env.c.Download(ctx, testClaim("d-1"), expect, discard{}, &p)
		require.ErrorIs(t, err, ErrIntegrity)
		require.ErrorContains(t, err, "not checked")
		require.ErrorContains(t, err, "esc pressed")
		requireNotRun(t, rep, "esc pressed")
	})
	t.Run("sink", func(t *testing.T) {
		env := newEnv(t, payloadServer{body: body, send: -1, trailer: "verified"})
		rep, err := env.c.Download(context.Background(), testClaim("d-1"), expect, &failingSink{}, nil)
		require.ErrorContains(t, err, "disk full")
		requireNotRun(t, rep, "writing it failed: disk full")
	})
	t.Run("server stall fails", func(t *testing.T) {
		env := newEnv(t, payloadServer{body: body, send: 3000, trailer: "verified", block: true},
			func(c *Config) { c.StallTimeout = 80 * time.Millisecond })
		rep, err := env.c.Download(context.Background(), testClaim("d-1"), expect, discard{}, nil)
		require.ErrorIs(t, err, errStalled)
		require.NoError(t, rep.LocalStop, "the server stalled, not this side")
		require.Contains(t, failedNames(rep), CheckTrailer)
	})
}
