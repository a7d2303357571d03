package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		tls  bool
		ok   bool
	}{
		{"127.0.0.1:8787", false, true},
		{"[::1]:8787", false, true},
		{"localhost:8787", false, true},
		{"0.0.0.0:8787", false, false},
		{"192.0.2.7:8787", false, false},
		{"0.0.0.0:8787", true, true},
		{"nohostport", false, false},
	} {
		err := CheckAddr(tc.addr, tc.tls)
		if (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, tls %v) = %v", tc.addr, tc.tls, err)
		}
		if !tc.ok && tc.addr != "nohostport" && !errors.Is(err, ErrNeedsTLS) {
			t.Errorf("CheckAddr(%q): %v is not ErrNeedsTLS", tc.addr, err)
		}
	}
}

// writeCert writes a throwaway certificate for 127.0.0.1.
func writeCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "b2bx test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestListenServesTLS(t *testing.T) {
	certFile, keyFile, pool := writeCert(t)
	if _, err := Listen("127.0.0.1:0", certFile, ""); err == nil {
		t.Fatal("a certificate without its key was accepted")
	}
	ln, err := Listen("127.0.0.1:0", certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	h := realRig(t)
	srv := NewServer(h)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	s := &Sender{URL: "https://" + ln.Addr().String() + "/webhook", Secret: secret.New(canarySecret), Schedule: []time.Duration{0},
		Client: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	res := s.Send(t.Context(), ev{seq: 1}.json(), SendOptions{}, nil)
	if !res.Delivered() || res.Last().Answer.Result != events.ResultACK {
		t.Fatalf("over TLS: %+v", res)
	}
}
