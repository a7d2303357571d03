package apiclient

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// logAttempt writes one record per HTTP attempt with only the fields the
// contract allows: operation, HTTP status, stable code, correlation ID,
// connection ID, delivery attempt ID, time and duration. Never a key,
// secret, token, payload, hash or server message.
func (c *Client) logAttempt(ctx context.Context, cl *call, n int, start time.Time, resp *http.Response, err error) {
	level := slog.LevelDebug
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("op", cl.op), slog.Int("attempt", n))
	var ae *APIError
	var ne *NetworkError
	switch {
	case err == nil && resp != nil:
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	case errors.As(err, &ae):
		level = slog.LevelWarn
		attrs = append(attrs, slog.Int("status", ae.HTTPStatus), slog.String("code", safeField(ae.Code)))
	case errors.As(err, &ne):
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", "network"), slog.Bool("unclear", ne.Unclear))
	case err != nil:
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", "local"))
	}
	attrs = append(attrs, c.idAttrs(cl.corr, cl.deliveryID)...)
	attrs = append(attrs, slog.Duration("duration", time.Since(start)))
	c.log.LogAttrs(ctx, level, "partner api call", attrs...)
}

// idAttrs are the identifying fields of every record.
func (c *Client) idAttrs(corr, deliveryID string) []slog.Attr {
	attrs := []slog.Attr{slog.String("correlationId", corr), slog.String("connectionId", safeField(c.cfg.ConnectionID))}
	if deliveryID != "" {
		attrs = append(attrs, slog.String("deliveryAttemptId", safeField(deliveryID)))
	}
	return attrs
}

// safeField sanitises and caps a server-provided identifier for a log.
func safeField(s string) string { return termsafe.String(capRunes(s, 128)) }

// logRetry records a scheduled retry and when it will run.
func (c *Client) logRetry(ctx context.Context, cl *call, ev RetryEvent) {
	attrs := []slog.Attr{slog.String("op", cl.op), slog.Int("attempt", ev.Attempt),
		slog.Duration("wait", ev.Wait), slog.Time("nextAt", ev.NextAt)}
	attrs = append(attrs, c.idAttrs(cl.corr, cl.deliveryID)...)
	c.log.LogAttrs(ctx, slog.LevelInfo, "partner api retry scheduled", attrs...)
}

// logRetryRefused records a retry that was not scheduled (lease, deadline
// or an absurd Retry-After) and the wait it would have needed.
func (c *Client) logRetryRefused(ctx context.Context, cl *call, ev RetryEvent) {
	attrs := []slog.Attr{slog.String("op", cl.op), slog.Int("attempt", ev.Attempt),
		slog.Duration("wait", ev.Wait), slog.Bool("retryAfter", ev.FromRetryAfter)}
	if !ev.LeaseExpiresAt.IsZero() {
		attrs = append(attrs, slog.Time("leaseExpiresAt", ev.LeaseExpiresAt))
	}
	attrs = append(attrs, c.idAttrs(cl.corr, cl.deliveryID)...)
	c.log.LogAttrs(ctx, slog.LevelWarn, "partner api retry not scheduled", attrs...)
}

// logSkipped records a listed entry the client refused: its position, the
// reason and the (sanitised) ID, never hashes or other server values.
func (c *Client) logSkipped(ctx context.Context, cl *call, index int, id, reason string) {
	attrs := []slog.Attr{slog.String("op", cl.op), slog.Int("index", index), slog.String("reason", reason)}
	attrs = append(attrs, c.idAttrs(cl.corr, id)...)
	c.log.LogAttrs(ctx, slog.LevelWarn, "mailbox entry skipped", attrs...)
}
