package apiclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Expect is what the mailbox listing said about a payload (Entry.Expect).
// The zero value means "unknown" and fails both listing checks.
type Expect struct {
	Size   int64
	SHA256 string
}

// Names of the integrity checks, as used in CheckResult.Name.
const (
	CheckSizeHeader  = "sizeHeader"
	CheckSizeListing = "sizeListing"
	CheckHashHeader  = "hashHeader"
	CheckHashListing = "hashListing"
	CheckTrailer     = "trailer"
)

// Payload response headers and trailer.
const (
	HeaderPayloadSize       = "X-B2B-Payload-Size"
	HeaderPayloadSHA256     = "X-B2B-Payload-SHA256"
	TrailerPayloadIntegrity = "X-B2B-Payload-Integrity"
	TrailerVerified         = "verified"
)

// CheckResult is the outcome of one integrity check. Want and Got hold
// sizes, hashes or the trailer value (server values are sanitised).
type CheckResult struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Want   string `json:"want"`
	Got    string `json:"got"`
	Detail string `json:"detail,omitempty"`
	// NotRun: the check could not run because nothing was read (the
	// answer announced a size above MaxPayloadSize), or the download was
	// stopped on this side (IntegrityReport.LocalStop; Detail names the
	// cause). It is not OK, but it did not fail either: Failed leaves it
	// out.
	NotRun bool `json:"notRun,omitempty"`
}

// IntegrityReport is the full result of a download. Download returns it
// whenever the payload answer started, also on failure.
type IntegrityReport struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	Bytes             int64  `json:"bytes"`  // bytes received and written to the sink (at most the announced size, at most 16 MiB)
	SHA256            string `json:"sha256"` // lower-case hex of those bytes

	HeaderSize   int64  `json:"headerSize"`   // X-B2B-Payload-Size; -1 if missing or invalid
	HeaderSHA256 string `json:"headerSha256"` // as sent, sanitised
	Trailer      string `json:"trailer"`      // X-B2B-Payload-Integrity after EOF, sanitised; "" if missing

	SizeHeader   CheckResult `json:"sizeHeader"`
	SizeListing  CheckResult `json:"sizeListing"`
	HashHeader   CheckResult `json:"hashHeader"`
	HashListing  CheckResult `json:"hashListing"`
	TrailerCheck CheckResult `json:"trailerCheck"`

	// ReadErr is any error while reading the body (reset, unexpected EOF,
	// cancel, stall, more bytes than announced): a failed download
	// whatever the checks say.
	ReadErr error `json:"-"`
	// SinkErr is an error writing to the sink: also a failed download.
	SinkErr error `json:"-"`
	// LocalStop is why the download was stopped on this side before the
	// stream ended: the caller cancelled (esc, Ctrl-C, the lease ran
	// out) or writing failed (disk full, a file size limit). The partner
	// sent nothing wrong, so every check is "not run" with this cause,
	// not failed.
	LocalStop error `json:"-"`
	// overflow: the body went on past the announced size (or 16 MiB);
	// Bytes stops there and the size checks fail.
	overflow bool
	// refused: an announced size above MaxPayloadSize; nothing was read,
	// so only the size check that announced it ran (and failed).
	refused bool

	Duration      time.Duration `json:"duration"`
	CorrelationID string        `json:"correlationId"`
}

// Checks lists the five checks in a fixed order.
func (r *IntegrityReport) Checks() []CheckResult {
	return []CheckResult{r.SizeHeader, r.SizeListing, r.HashHeader, r.HashListing, r.TrailerCheck}
}

// OK reports whether the payload may be processed: no read or sink error
// and every check passed.
func (r *IntegrityReport) OK() bool {
	return r.ReadErr == nil && r.SinkErr == nil && len(r.Failed()) == 0
}

// Failed lists the failed checks (not those that could not run).
func (r *IntegrityReport) Failed() []CheckResult {
	var out []CheckResult
	for _, c := range r.Checks() {
		if !c.OK && !c.NotRun {
			out = append(out, c)
		}
	}
	return out
}

// errStalled is the cause when the stall watchdog aborts a download.
var errStalled = errors.New("no data received within the stall timeout")

// bufPool holds copy buffers so memory use does not grow with payload size.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// Download streams the claimed payload into sink in one pass, counting and
// hashing the same buffer that goes to the sink, updating p (may be nil).
// It then checks the byte count and SHA-256 against X-B2B-Payload-Size,
// X-B2B-Payload-SHA256 and the listing (expect), and requires the trailer
// X-B2B-Payload-Integrity: verified after EOF (a 200 before EOF proves
// nothing). Any read error is a failed download.
//
// It never writes more than the announced size (header or listing,
// whichever is larger) nor more than MaxPayloadSize to sink: a body that goes on is cut there
// and fails the size checks, and an announced size above MaxPayloadSize
// fails before any byte is read, so a hostile server cannot fill the disk.
//
// The error is an *IntegrityError (with the report) when the download
// failed; an *APIError or *NetworkError when no payload answer came, in
// which case the report is nil and nothing was written to sink.
func (c *Client) Download(ctx context.Context, claim *Claim, expect Expect, sink io.Writer, p *Progress) (*IntegrityReport, error) {
	tok, err := tokenFor("download", claim)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		return nil, errors.New("download: no sink to write the payload to")
	}
	if p == nil {
		p = &Progress{}
	}
	caller := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cl := &call{op: "download", scope: ScopeMailboxPayloadRead, method: http.MethodGet,
		url:   c.endpoint(nil, "mailbox", claim.DeliveryAttemptID, "payload"),
		token: tok, deliveryID: claim.DeliveryAttemptID, corr: correlationFor(ctx), mode: retryUnclear, lease: claim.ExpiresAt}
	start := time.Now()
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, garbage(cl, resp, "payload answered with status %d instead of 200", resp.StatusCode)
	}
	rep := &IntegrityReport{DeliveryAttemptID: claim.DeliveryAttemptID, CorrelationID: cl.corr, HeaderSize: -1}
	rawSize, rawHash := resp.Header.Get(HeaderPayloadSize), resp.Header.Get(HeaderPayloadSHA256)
	if n, err := strconv.ParseInt(strings.TrimSpace(rawSize), 10, 64); err == nil && n >= 0 {
		rep.HeaderSize = n
	}
	rep.HeaderSHA256 = sanitiseValue(rawHash)

	limit, refuse := readLimit(rep.HeaderSize, expect)
	p.start(min(cmp(rep.HeaderSize >= 0, rep.HeaderSize, expect.Size), MaxPayloadSize))
	h := sha256.New()
	if refuse != nil {
		rep.ReadErr, rep.refused = refuse, true
	} else {
		stopWatch := c.watchStall(p, cancel)
		rep.Bytes, rep.overflow, rep.ReadErr, rep.SinkErr = stream(resp.Body, sink, h, p, limit)
		stopWatch()
	}
	rawTrailer := ""
	if rep.ReadErr == nil && rep.SinkErr == nil {
		rawTrailer = resp.Trailer.Get(TrailerPayloadIntegrity) // only set after EOF
	}
	resp.Body.Close()
	if rep.ReadErr != nil && ctx.Err() != nil {
		rep.ReadErr = fmt.Errorf("payload read aborted: %w", context.Cause(ctx))
	}
	switch {
	case rep.SinkErr != nil:
		rep.LocalStop = fmt.Errorf("stopped here: writing it failed: %w", rep.SinkErr)
	case rep.ReadErr != nil && caller.Err() != nil:
		// The caller's context, not the stall watchdog: stopped here.
		rep.LocalStop = fmt.Errorf("stopped here: %w", context.Cause(caller))
	}
	p.finish()
	rep.Trailer = sanitiseValue(rawTrailer)
	rep.SHA256 = hex.EncodeToString(h.Sum(nil))
	rep.Duration = time.Since(start)
	rep.check(expect, rawHash, rawTrailer)
	c.logDownload(ctx, cl, rep)
	if !rep.OK() {
		return rep, &IntegrityError{Report: rep}
	}
	return rep, nil
}

func cmp[T any](cond bool, a, b T) T {
	if cond {
		return a
	}
	return b
}

// readLimit is the most bytes Download reads: the larger announced size
// (header, listing; a mismatch between them fails anyway, and reading the
// larger one lets the report say which was right) and never more than
// MaxPayloadSize, so a hostile or broken server cannot fill the disk. An
// announced size above MaxPayloadSize is refused before reading anything.
func readLimit(headerSize int64, expect Expect) (int64, error) {
	limit := int64(-1)
	for _, n := range []int64{headerSize, cmp(expect != Expect{}, expect.Size, -1)} {
		if n > MaxPayloadSize {
			return 0, fmt.Errorf("the server announces %d bytes, more than the contract's 16 MiB limit (%d bytes); nothing was read", n, int64(MaxPayloadSize))
		}
		limit = max(limit, n)
	}
	return cmp(limit >= 0, limit, MaxPayloadSize), nil
}

// stream copies body to sink and h through one reused buffer: every byte
// is read once and written once to each; nothing is copied in between.
// It never writes more than limit bytes: when the body goes on past limit
// it stops with overflow set and an error, the excess unwritten.
func stream(body io.Reader, sink io.Writer, h hash.Hash, p *Progress, limit int64) (n int64, overflow bool, readErr, sinkErr error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for {
		nr, er := body.Read(buf)
		if int64(nr) > limit-n {
			overflow, nr = true, int(limit-n)
		}
		if nr > 0 {
			if nw, ew := sink.Write(buf[:nr]); ew != nil || nw != nr {
				return n, false, nil, cmp[error](ew != nil, ew, io.ErrShortWrite)
			}
			h.Write(buf[:nr])
			n += int64(nr)
			p.bytes.Add(int64(nr))
		}
		switch {
		case overflow:
			return n, true, fmt.Errorf("the body goes on past the %d bytes announced; stopped reading there", limit), nil
		case er == io.EOF:
			return n, false, nil, nil
		case er != nil:
			return n, false, er, nil
		}
	}
}

// watchStall cancels the download when p stops growing for c.stall. It
// returns a function that stops the watchdog.
func (c *Client) watchStall(p *Progress, cancel context.CancelCauseFunc) (stop func()) {
	if c.stall < 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(max(c.stall/4, 5*time.Millisecond))
		defer tick.Stop()
		last, since := p.bytes.Load(), time.Now()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				if b := p.bytes.Load(); b != last {
					last, since = b, now
				} else if now.Sub(since) >= c.stall {
					cancel(fmt.Errorf("%w (%s)", errStalled, c.stall))
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// sanitiseValue makes a server header value safe to show and store.
func sanitiseValue(s string) string { return termsafe.String(capRunes(s, 128)) }
