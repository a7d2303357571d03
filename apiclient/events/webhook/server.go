package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	// Receiver are the receiver's options; Original is set to the
	// store's.
	Receiver events.ReceiverOptions
	// Now, BodyTimeout and OnRecord are the Handler's.
	Now         func() time.Time
	BodyTimeout time.Duration
	OnRecord    func(Record)
}

// Open opens the capture directory, replays what it holds into a new
// Receiver (a restart goes on from there) and returns the Handler and
// the number of deliveries replayed.
func Open(cfg Config) (*Handler, int, error) {
	st, err := OpenStore(cfg.Dir)
	if err != nil {
		return nil, 0, err
	}
	ro := cfg.Receiver
	ro.Original = st.Original
	rc, err := events.NewReceiver(ro)
	if err != nil {
		return nil, 0, err
	}
	n, err := st.Replay(rc)
	if err != nil {
		return nil, n, err
	}
	return &Handler{Receiver: rc, Store: st, Now: cfg.Now, BodyTimeout: cfg.BodyTimeout, OnRecord: cfg.OnRecord}, n, nil
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
	return err
}
