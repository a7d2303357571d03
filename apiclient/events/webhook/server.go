package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
)

// Server timeouts: a sender that dribbles its headers (slowloris) is cut
// after ReadHeaderTimeout, a body after the handler's BodyTimeout, an
// idle keep-alive connection after IdleTimeout.
const (
	ReadHeaderTimeout = 5 * time.Second
	WriteTimeout      = 30 * time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 64 << 10
)

// ErrNeedsTLS is returned by CheckAddr for a non-loopback address
// without TLS.
var ErrNeedsTLS = errors.New("plain http is only allowed on a loopback address")

// CheckAddr accepts a HOST:PORT to listen on: any host with TLS, plain
// http only on loopback (127.0.0.0/8, ::1, localhost), as for the API.
func CheckAddr(addr string, tls bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: want HOST:PORT, e.g. 127.0.0.1:8787", addr)
	}
	if tls {
		return nil
	}
	ip := net.ParseIP(host)
	if host == "localhost" || ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %s is reachable from the network, so events (and their signatures) would travel unencrypted; listen on 127.0.0.1, or give --tls-cert FILE --tls-key FILE", ErrNeedsTLS, addr)
}

// NewServer returns an http.Server for h with the timeouts above.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, WriteTimeout: WriteTimeout,
		IdleTimeout: IdleTimeout, MaxHeaderBytes: MaxHeaderBytes}
}

// Listen opens addr after CheckAddr; with a certificate and key it
// serves TLS (1.2 or later).
func Listen(addr, certFile, keyFile string) (net.Listener, error) {
	useTLS := certFile != "" || keyFile != ""
	if useTLS && (certFile == "" || keyFile == "") {
		return nil, errors.New("give both --tls-cert FILE and --tls-key FILE")
	}
	if err := CheckAddr(addr, useTLS); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if !useTLS {
		return ln, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), nil
}

// Config configures Open.
type Config struct {
	// Dir is the capture directory (created when missing).
	Dir string
	// Receiver are the receiver's options; State and Original are set
	// to the directory's.
	Receiver events.ReceiverOptions
	// Retention is how long idempotency keys are kept
	// (DefaultRetention when 0).
	Retention time.Duration
	// Now, BodyTimeout, OnRecord, OnCommitted and OnBatch are the
	// Handler's.
	Now         func() time.Time
	BodyTimeout time.Duration
	OnRecord    func(Record)
	OnCommitted func(Committed)
	OnBatch     func(n int, took time.Duration)
	// OnNote, when set, gets one line for each thing about the directory
	// worth saying (foreign files ignored, a state file rebuilt).
	OnNote func(string)
}

// Open opens the capture directory and its state file (StateFile),
// replays the captures the state does not hold yet (all of them when the
// state is new) and returns the Handler and the number of deliveries the
// state holds (earlier deliveries a restart goes on from). Close the
// Handler when done (Serve does).
func Open(cfg Config) (*Handler, int, error) {
	st, err := OpenStore(cfg.Dir)
	if err != nil {
		return nil, 0, err
	}
	state, _, note, err := openStateIn(cfg.Dir, cfg.Retention)
	if err != nil {
		st.Close()
		return nil, 0, err
	}
	note1 := func(msg string) {
		if cfg.OnNote != nil && msg != "" {
			cfg.OnNote(msg)
		}
	}
	note1(note)
	ro := cfg.Receiver
	ro.Original = st.Original
	ro.State = state
	rc, err := events.NewReceiver(ro)
	if err != nil {
		state.Close()
		st.Close()
		return nil, 0, err
	}
	n, err := st.Replay(rc)
	if err != nil {
		state.Close()
		st.Close()
		return nil, n, err
	}
	if f := st.Foreign(); len(f) > 0 {
		note1(fmt.Sprintf("ignoring %d file(s) in the capture directory that this receiver did not write (%s): they are not replayed and never overwritten; move them out of %s",
			len(f), strings.Join(f[:min(len(f), 3)], ", "), cfg.Dir))
	}
	d, _ := rc.Delivered()
	h := &Handler{Receiver: rc, Store: st, Now: cfg.Now, BodyTimeout: cfg.BodyTimeout, OnRecord: cfg.OnRecord, OnCommitted: cfg.OnCommitted,
		OnBatch: cfg.OnBatch, Replayed: n, closers: []func() error{state.Close, st.Close}}
	st.prepare() // the first delivery finds its spare
	return h, d, nil
}

// ShutdownTimeout bounds how long Serve waits for deliveries in flight
// when its context ends.
const ShutdownTimeout = 5 * time.Second

// Serve serves h on ln until ctx ends, then shuts down (waiting at most
// ShutdownTimeout for deliveries in flight). Connections that have not
// started a request are closed at once: a client's spare keep-alive
// connection would otherwise hold the shutdown for its whole timeout,
// and nothing was received on them. It returns nil after a shutdown by
// ctx, even when a delivery had to be cut (it was not answered, so its
// sender resends it; a committed one is then a DUPLICATE).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := NewServer(h)
	var mu sync.Mutex
	fresh := map[net.Conn]bool{}
	stopping := false
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		switch st {
		case http.StateNew:
			if stopping {
				_ = c.Close()
				return
			}
			fresh[c] = true
		default:
			delete(fresh, c)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	mu.Lock()
	stopping = true
	for c := range fresh {
		_ = c.Close()
	}
	mu.Unlock()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	<-errc
	if c, ok := h.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
