package apiclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// retryMode says which failures an operation may repeat.
type retryMode int

const (
	// retryUnclear: idempotent requests (GET, acknowledge with the same
	// token, upload with the same key) repeat after any transient failure,
	// including network errors where the server may have acted.
	retryUnclear retryMode = iota
	// retryCertain: repeat only when the server certainly did not act
	// (503, 429, connection never established). Used for claim.
	retryCertain
)

// call is one operation's request description; body is re-created for
// every attempt so a retry resends the same bytes.
type call struct {
	op          string
	scope       Scope
	method      string
	url         string
	deliveryID  string
	token       *ClaimToken
	header      map[string]string
	body        func() io.Reader
	size        int64
	contentType string
	mode        retryMode
	corr        string
	// lease is the claim's ExpiresAt for calls carrying its token: no
	// retry is scheduled that the lease cannot cover. Zero: unbounded.
	lease time.Time
}

// do runs c with rate limiting and retries and returns a 2xx response whose
// body the caller must read and close. Errors are *APIError, *NetworkError,
// the context's error, or a retry that was not scheduled (ErrLeaseTooShort,
// ErrRetryTooLong) wrapping the last failure.
func (c *Client) do(ctx context.Context, cl *call) (*http.Response, error) {
	if c.closed.Load() {
		return nil, fmt.Errorf("%s: %w", cl.op, ErrClosed)
	}
	pol := c.cfg.Retry
	sched := pol.Schedule
	if len(sched) == 0 {
		sched = defaultSchedule[:]
	}
	maxAttempts := pol.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = max(len(sched), 1)
	}
	for attempt := 1; ; attempt++ {
		resp, err, retriable := c.attempt(ctx, cl, attempt)
		if err == nil {
			return resp, nil
		}
		if !retriable || attempt >= maxAttempts || ctx.Err() != nil {
			return nil, err
		}
		ev, err := c.planRetry(ctx, cl, attempt, err, sched[min(attempt, len(sched)-1)])
		if err != nil {
			c.logRetryRefused(ctx, cl, ev)
			return nil, err
		}
		c.logRetry(ctx, cl, ev)
		if notify := notifierFor(ctx, pol); notify != nil {
			notify(ev)
		}
		if werr := c.wait(ctx, ev.Wait); werr != nil {
			return nil, fmt.Errorf("%s: gave up waiting to retry after %w: %w", cl.op, ev.Err, werr)
		}
	}
}

// planRetry decides the wait before the next attempt after lastErr: the
// server's Retry-After when it sent one, else the schedule's delay. It
// refuses (with an error wrapping lastErr) a Retry-After beyond
// MaxRetryAfter, a wait that passes the context's deadline, and, for
// calls carrying a claim token, a wait the lease cannot cover.
func (c *Client) planRetry(ctx context.Context, cl *call, attempt int, lastErr error, scheduled time.Duration) (RetryEvent, error) {
	ev := RetryEvent{Op: cl.op, Attempt: attempt, Err: lastErr, Wait: scheduled, CorrelationID: cl.corr,
		DeliveryAttemptID: cl.deliveryID, LeaseExpiresAt: cl.lease}
	var ae *APIError
	if errors.As(lastErr, &ae) && ae.RetryAfter > 0 {
		ev.Wait, ev.FromRetryAfter = ae.RetryAfter, true
	}
	now := c.now()
	ev.NextAt = now.Add(ev.Wait)
	dl, hasDeadline := ctx.Deadline()
	refuse := func(why string, errs ...error) (RetryEvent, error) {
		return ev, &RetryRefusedError{Op: cl.op, Why: why, Wait: ev.Wait, NextAt: ev.NextAt, errs: append(errs, lastErr)}
	}
	switch {
	case ev.FromRetryAfter && ev.Wait > MaxRetryAfter:
		return refuse(fmt.Sprintf("the server asks to wait %s (Retry-After), longer than the %s the client waits; try again after %s",
			ev.Wait, MaxRetryAfter, ev.NextAt.UTC().Format(time.RFC3339)), ErrRetryTooLong)
	case !cl.lease.IsZero() && now.Add(ev.Wait+LeaseMargin).After(cl.lease):
		return refuse(fmt.Sprintf("the next attempt in %s (plus a %s margin) would end after the claim's lease (expires %s); nothing was acknowledged and the entry becomes due again when the lease runs out",
			ev.Wait, LeaseMargin, cl.lease.UTC().Format(time.RFC3339)), ErrLeaseTooShort)
	case hasDeadline && ev.Wait > 0 && ev.Wait > time.Until(dl):
		// The deadline is on the real clock, whatever c.now says.
		return refuse(fmt.Sprintf("the next attempt in %s would start after the deadline (%s left)",
			ev.Wait, time.Until(dl).Round(time.Millisecond)), ErrRetryTooLong, context.DeadlineExceeded)
	}
	return ev, nil
}

// wait sleeps d, ending early on a "retry now" signal or the context.
func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	now, _ := ctx.Value(retryNowKey{}).(<-chan struct{})
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-now:
		return nil
	case <-c.after(d):
		return nil
	}
}

// attempt sends one request. retriable reports whether the failure may be
// repeated under cl.mode.
func (c *Client) attempt(ctx context.Context, cl *call, n int) (resp *http.Response, err error, retriable bool) {
	start := time.Now()
	defer func() { c.logAttempt(ctx, cl, n, start, resp, err) }()
	// The attempt's own context: reading a JSON answer cancels it when
	// the body stalls (readAnswer); closing the body releases it.
	actx, cancel := context.WithCancelCause(ctx)
	req, err := c.newRequest(actx, cl)
	if err != nil {
		cancel(nil)
		return nil, err, false
	}
	if err := c.limiter.Wait(ctx); err != nil {
		cancel(nil)
		if _, has := ctx.Deadline(); has && ctx.Err() == nil {
			// the limiter refuses at once a wait that would outlast the
			// deadline; the deadline is what ends this call, so it is
			// what the error says (the overall --timeout), when it comes
			<-ctx.Done()
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s [correlation %s]: waiting for the rate limit: %w", cl.op, cl.corr, context.Cause(ctx)), false
		}
		return nil, fmt.Errorf("%s: rate limiter: %w", cl.op, err), false
	}
	resp, err = c.hc.Do(req)
	if err == nil {
		wrapAnswer(actx, cancel, resp)
	} else {
		cancel(nil)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s [correlation %s]: %w", cl.op, cl.corr, context.Cause(ctx)), false
		}
		ne := &NetworkError{Op: cl.op, CorrelationID: cl.corr, Unclear: !notSent(err), Err: err}
		if permanentNetErr(err) {
			return nil, ne, false
		}
		return nil, ne, !ne.Unclear || cl.mode == retryUnclear
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil, false
	}
	ae := c.readAPIError(cl, resp)
	switch resp.StatusCode {
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		return nil, ae, true
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		// A gateway may have forwarded the request: unclear.
		return nil, ae, cl.mode == retryUnclear
	}
	return nil, ae, false
}

func (c *Client) newRequest(ctx context.Context, cl *call) (*http.Request, error) {
	cred, err := c.cfg.Credentials.Credential(ctx, cl.scope)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cl.op, err)
	}
	if cred.IsZero() {
		return nil, fmt.Errorf("%s: %w for scope %s", cl.op, ErrNoCredential, cl.scope)
	}
	if !headerSafe(cred.KeyID) || !headerSafe(cred.Secret.Reveal()) || strings.Contains(cred.KeyID, ":") {
		return nil, fmt.Errorf("%s: API key %q is malformed (control characters, spaces or ':' in the key ID); re-enter it", cl.op, termsafe.String(cred.KeyID))
	}
	var body io.Reader
	if cl.body != nil {
		body = cl.body()
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, cl.url, body)
	if err != nil {
		return nil, fmt.Errorf("%s: building request: %w", cl.op, err)
	}
	if cl.body != nil {
		req.ContentLength = cl.size
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(cl.body()), nil }
	}
	req.Header.Set("Authorization", cred.BearerHeader())
	req.Header.Set("X-Correlation-ID", cl.corr)
	req.Header.Set("Accept", "application/json")
	if cl.contentType != "" {
		req.Header.Set("Content-Type", cl.contentType)
	}
	for k, v := range cl.header {
		req.Header.Set(k, v)
	}
	if cl.token != nil {
		req.Header.Set("X-B2B-Claim-Token", cl.token.v.Reveal())
	}
	return req, nil
}

// headerSafe reports whether s is non-empty visible ASCII, so it can go
// into a header without net/http rejecting (and possibly quoting) it.
func headerSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// notSent reports whether err happened before the request could reach the
// server: the connection was never established.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// permanentNetErr: TLS/certificate problems do not heal by waiting.
func permanentNetErr(err error) bool {
	var (
		cv  *tls.CertificateVerificationError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		rhe tls.RecordHeaderError
	)
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) ||
		errors.As(err, &ci) || errors.As(err, &rhe)
}
