package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Admin server bounds: a scraper gets its answer or its connection
// closed; nothing it sends can hold the server.
const (
	adminReadHeader = 5 * time.Second
	adminRead       = 10 * time.Second
	adminWrite      = 15 * time.Second
	adminIdle       = 60 * time.Second
	adminHeaderMax  = 8 << 10
	scrapeTimeout   = 10 * time.Second
	scrapesAtOnce   = 4
	// AdminShutdown bounds how long Admin.Close waits for a scrape.
	AdminShutdown = 2 * time.Second
)

// Admin is the admin listener: /healthz and /metrics, apart from the
// listener that receives deliveries.
type Admin struct {
	srv *http.Server
	ln  net.Listener
	// Err gets the server's error when it stops for another reason than
	// Close (buffered: read it or not).
	Err chan error
}

// AdminAddr is addr as the admin listener binds it: a missing host
// (":9464") is loopback, so metrics are not served to the network unless
// a host is given ("0.0.0.0:9464", "[::]:9464", an interface address).
func AdminAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--admin %q is not HOST:PORT (%v): give one like 127.0.0.1:9464", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil || port == "" {
		return "", fmt.Errorf("--admin %q has no usable port: give one like 127.0.0.1:9464", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// ServeAdmin listens on addr (AdminAddr) and serves reg on /metrics and
// health on /healthz (nil error: 200 "ok"; else 503 with the reason).
func ServeAdmin(addr string, reg prometheus.Gatherer, health func() error) (*Admin, error) {
	bind, err := AdminAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, fmt.Errorf("--admin: cannot listen on %s: %w (choose another port)", bind, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		Timeout: scrapeTimeout, MaxRequestsInFlight: scrapesAtOnce, ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if health != nil {
			if err := health(); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintf(w, "unhealthy: %s\n", err)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	a := &Admin{ln: ln, Err: make(chan error, 1), srv: &http.Server{
		Handler: mux, ReadHeaderTimeout: adminReadHeader, ReadTimeout: adminRead,
		WriteTimeout: adminWrite, IdleTimeout: adminIdle, MaxHeaderBytes: adminHeaderMax,
	}}
	go func() {
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.Err <- err
		}
	}()
	return a, nil
}

// Addr is the address the admin listener is bound to.
func (a *Admin) Addr() net.Addr { return a.ln.Addr() }

// Close stops the admin server, waiting at most AdminShutdown for a
// scrape in flight.
func (a *Admin) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), AdminShutdown)
	defer cancel()
	if err := a.srv.Shutdown(ctx); err != nil {
		return a.srv.Close()
	}
	return nil
}
