package partnersim

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"sync"
	"time"
)

// Mode selects how Serve exposes the handler.
type Mode int

const (
	// HTTP1 serves plain HTTP/1.1 ("http://127.0.0.1:PORT").
	HTTP1 Mode = iota
	// HTTP2TLS serves TLS with a throwaway certificate, offering HTTP/2
	// (and HTTP/1.1 as ALPN fallback); Server.Client negotiates HTTP/2.
	HTTP2TLS
	// HTTP1TLS serves TLS with HTTP/1.1 only.
	HTTP1TLS
)

// Server is a handler running on a real loopback listener, like
// httptest.Server.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234" (no trailing slash).
	URL string
	// Listener is the listening socket.
	Listener net.Listener
	// CACertPEM is the PEM certificate a client must trust for the TLS
	// modes (nil for HTTP1).
	CACertPEM []byte

	mode   Mode
	srv    *http.Server
	pool   *x509.CertPool
	once   sync.Once
	client *http.Client
	done   chan struct{}
}

// Serve starts h on 127.0.0.1 with an ephemeral port.
func Serve(h http.Handler, mode Mode) (*Server, error) {
	return ServeAddr("127.0.0.1:0", h, mode)
}

// ServeAddr starts h on addr ("127.0.0.1:0" for an ephemeral port).
func ServeAddr(addr string, h http.Handler, mode Mode) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("partnersim: listen on %s: %w", addr, err)
	}
	s := &Server{Listener: ln, mode: mode, done: make(chan struct{})}
	s.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(discard{}, "", 0),
		Protocols:         new(http.Protocols),
	}
	scheme := "http"
	switch mode {
	case HTTP1:
		s.srv.Protocols.SetHTTP1(true)
	case HTTP2TLS, HTTP1TLS:
		scheme = "https"
		cert, pemBytes, err := selfSigned()
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
		s.CACertPEM = pemBytes
		s.pool = x509.NewCertPool()
		s.pool.AppendCertsFromPEM(pemBytes)
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.srv.Protocols.SetHTTP1(true)
		s.srv.Protocols.SetHTTP2(mode == HTTP2TLS)
	default:
		_ = ln.Close()
		return nil, fmt.Errorf("partnersim: unknown mode %d", mode)
	}
	s.URL = scheme + "://" + s.Listener.Addr().String()
	go func() {
		defer close(s.done)
		if mode == HTTP1 {
			_ = s.srv.Serve(ln)
			return
		}
		// ServeTLS fills in ALPN (h2, http/1.1) from Protocols.
		_ = s.srv.ServeTLS(ln, "", "")
	}()
	return s, nil
}

// Client returns an *http.Client for this server: it trusts the server's
// certificate and negotiates HTTP/2 in HTTP2TLS mode.
func (s *Server) Client() *http.Client {
	s.once.Do(func() {
		tr := &http.Transport{Protocols: new(http.Protocols), ForceAttemptHTTP2: s.mode == HTTP2TLS}
		tr.Protocols.SetHTTP1(true)
		if s.pool != nil {
			tr.TLSClientConfig = &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}
			tr.Protocols.SetHTTP2(s.mode == HTTP2TLS)
		}
		s.client = &http.Client{Transport: tr}
	})
	return s.client
}

// Close stops the server at once, cutting active connections.
func (s *Server) Close() {
	_ = s.srv.Close()
	<-s.done
	if s.client != nil {
		s.client.CloseIdleConnections()
	}
}

// Shutdown stops accepting and waits for active requests until ctx ends,
// then cuts what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// selfSigned makes a throwaway ECDSA certificate for 127.0.0.1, ::1 and
// localhost that is its own CA, valid for a day.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("partnersim: key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("partnersim: serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"b2bx partnersim"}, CommonName: "partnersim loopback"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("partnersim: certificate: %w", err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pemBytes, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
