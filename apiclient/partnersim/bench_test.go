package partnersim

import (
	"context"
	"io"
	"net/http"
	"testing"
)

// benchServer serves one claimed entry of size bytes; the claim token is
// fixed so every iteration can read the payload again.
func benchServer(b *testing.B, mode Mode, size int) (*fixture, string) {
	b.Helper()
	sim := New(WithClock(NewFakeClock(timeZero)), WithTokens(func() string { return "bench-token" }))
	if err := sim.AddConnection(Connection{ID: connA, Tenant: tenantA}); err != nil {
		b.Fatal(err)
	}
	if err := sim.AddKey(Key{ID: keyAll, Secret: secretAll, Tenant: tenantA, Scopes: AllScopes}); err != nil {
		b.Fatal(err)
	}
	id, err := sim.AddEntry(connA, Delivery{MessageType: "ORDRSP", Payload: payload(size)})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := Serve(sim, mode)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	f := &fixture{sim: sim, srv: srv, hc: srv.Client()}
	hr, _ := http.NewRequest(http.MethodPost, f.url(connA, "mailbox", id, "claim"), nil)
	hr.Header.Set("Authorization", authAll)
	resp, err := f.hc.Do(hr)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("claim: %v", err)
	}
	resp.Body.Close()
	return f, id
}

// BenchmarkPayloadStream measures the handler streaming a 16 MiB entry over
// real loopback TCP (HTTP/1.1 and HTTP/2 over TLS) into a client that
// discards it; MB/s via SetBytes.
func BenchmarkPayloadStream(b *testing.B) {
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			f, id := benchServer(b, m.mode, MaxPayloadSize)
			buf := make([]byte, 256<<10)
			b.SetBytes(MaxPayloadSize)
			b.ReportAllocs()
			for b.Loop() {
				hr, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, f.url(connA, "mailbox", id, "payload"), nil)
				hr.Header.Set("Authorization", authAll)
				hr.Header.Set("X-B2B-Claim-Token", "bench-token")
				resp, err := f.hc.Do(hr)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, resp.Body, buf)
				resp.Body.Close()
				if err != nil || n != MaxPayloadSize || resp.Trailer.Get(TrailerIntegrity) != "verified" {
					b.Fatalf("read %d bytes, err %v, trailer %q", n, err, resp.Trailer.Get(TrailerIntegrity))
				}
			}
		})
	}
}
