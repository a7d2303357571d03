package partnersim

import (
	"context"
	"net"
	"net/http"
	"time"
)

// TrailerMode decides the X-B2B-Payload-Integrity trailer.
type TrailerMode int

const (
	// TrailerAuto sends "verified" after a complete stream and "failed"
	// after a truncated one (what an honest server does).
	TrailerAuto TrailerMode = iota
	// TrailerVerified always sends "verified", even after truncation (a
	// lying server: the client's own size and hash checks must catch it).
	TrailerVerified
	// TrailerFailed sends "failed" after a complete stream.
	TrailerFailed
	// TrailerAbsent neither declares nor sends the trailer.
	TrailerAbsent
)

// PayloadFault describes how a payload stream misbehaves. The zero value
// is a correct stream.
type PayloadFault struct {
	// Truncate ends the stream cleanly after TruncateAt bytes (the
	// trailer follows per Trailer: TrailerAuto gives "failed").
	Truncate   bool
	TruncateAt int64
	// Reset cuts the connection after ResetAt bytes without ending the
	// body: a TCP reset on HTTP/1, a stream reset on HTTP/2. With ResetAt
	// at or beyond the payload size every byte arrives, but never the end
	// of the body or the trailer.
	Reset   bool
	ResetAt int64
	// WrongSizeHeader sends X-B2B-Payload-Size one larger than the body.
	WrongSizeHeader bool
	// WrongHashHeader sends an X-B2B-Payload-SHA256 that differs from the
	// body's hash in the last digit.
	WrongHashHeader bool
	// WrongListingSize and WrongListingHash make the mailbox listing
	// disagree with the body and the headers in the same way.
	WrongListingSize bool
	WrongListingHash bool
	// Trailer chooses the trailer.
	Trailer TrailerMode
	// BytesPerSecond throttles the stream (real time, not the Sim clock).
	BytesPerSecond int64

	// AnnounceSize, when not 0, is the size the listing's payloadSize and
	// the X-B2B-Payload-Size header announce instead of the real one: a
	// hostile 1e15, or a negative size. The body is unchanged (see
	// Endless).
	AnnounceSize int64
	// Endless never ends the body: after the payload it sends the payload
	// again (or filler bytes when it is empty), over and over, until the
	// client stops reading or goes away. No trailer ever follows.
	Endless bool
	// OmitListingSize leaves payloadSize out of the listing.
	OmitListingSize bool
	// MalformedListingHash lists a payloadSha256 that is 64 characters
	// but not hex.
	MalformedListingHash bool
}

func (f PayloadFault) isZero() bool { return f == PayloadFault{} }

// EndpointFault makes matching requests misbehave. A fault matches a
// request to Endpoint (and, if Entry is set, to that deliveryAttemptId);
// the first matching fault that has calls left applies, in the order
// injected. Matching happens before authentication, like a gateway.
type EndpointFault struct {
	Endpoint Endpoint
	Entry    string // "" matches every entry (and entry-less endpoints)
	// Times is how many requests the fault affects; 0 means all.
	Times int
	// Latency delays the response (real time, cancelled with the request).
	Latency time.Duration
	// Status answers with this error status and the contract body instead
	// of handling the request (503, 500, 429, ...). 0: handle normally.
	Status int
	// RetryAfter is sent as Retry-After (whole seconds) with Status.
	RetryAfter time.Duration
	// RetryAfterHeader, when set, is sent as Retry-After with Status
	// exactly as given (an HTTP date, a huge number, garbage), instead of
	// RetryAfter.
	RetryAfterHeader string
	// DropResponse handles the request — the state change is committed
	// (claim made, ack recorded, upload stored) — and then cuts the
	// connection instead of answering, so the client sees a network error
	// and cannot know the outcome.
	DropResponse bool
	// Payload overrides the entry's PayloadFault for matching payload
	// requests (e.g. Times: 1 to break only the first download).
	Payload PayloadFault
	// Paging breaks the cursor contract of matching list requests (the
	// page's entries are the real ones).
	Paging PagingFault
	// DateSkew moves the answer's Date header this far off the
	// simulator's clock (a server whose clock is wrong).
	DateSkew time.Duration
	// LeaseAnnounced, when not 0, makes a matching claim answer an
	// expiresAt this long after the simulator's now (negative: already
	// past) instead of five minutes; the lease itself stays five minutes.
	LeaseAnnounced time.Duration
}

// PagingFault breaks GET /mailbox's paging.
type PagingFault int

const (
	// PagingOK pages as the contract says.
	PagingOK PagingFault = iota
	// PagingEndless always answers hasMore: true with a fresh cursor: the
	// due entries come round again and again, page after page (with no
	// due entries, empty pages), and the listing never ends.
	PagingEndless
	// PagingRepeatCursor answers hasMore: true with the same nextCursor
	// every time.
	PagingRepeatCursor
	// PagingNoCursor answers hasMore: true with an empty nextCursor.
	PagingNoCursor
)

type faultState struct {
	f    EndpointFault
	left int // remaining calls; -1 for unlimited
}

// InjectFault adds an endpoint fault.
func (s *Sim) InjectFault(f EndpointFault) {
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &faultState{f: f, left: left})
	s.mu.Unlock()
}

// ClearFaults removes every endpoint fault (entry faults stay).
func (s *Sim) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// takeFault consumes one call of the first matching fault.
func (s *Sim) takeFault(ep Endpoint, entryID string) (EndpointFault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, fs := range s.faults {
		if fs.f.Endpoint != ep || (fs.f.Entry != "" && fs.f.Entry != entryID) {
			continue
		}
		if fs.left > 0 {
			fs.left--
			if fs.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return fs.f, true
	}
	return EndpointFault{}, false
}

// sleepCtx waits d or until ctx ends; it reports whether the full wait
// elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// abortConnection cuts the response off. On HTTP/1 it hijacks the
// connection and closes it with SO_LINGER 0 so the peer sees a TCP reset
// (anything buffered is flushed first by Hijack). On HTTP/2, or when
// hijacking is impossible, it panics with http.ErrAbortHandler, which makes
// the server reset the stream (RST_STREAM) without logging a stack trace.
func abortConnection(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 1 {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			raw := conn
			if nc, ok := conn.(interface{ NetConn() net.Conn }); ok {
				raw = nc.NetConn()
			}
			if tc, ok := raw.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
