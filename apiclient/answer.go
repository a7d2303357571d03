package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// DefaultAnswerIdleTimeout and DefaultAnswerTimeout bound reading a JSON
// answer's body (mailbox page, claim, acknowledge, upload, an error's
// body): no byte for the idle timeout, or the whole body not in within
// the answer timeout, and the request fails. A JSON answer is at most
// 4 MiB; a payload download has its own stall watchdog instead.
const (
	DefaultAnswerIdleTimeout = 30 * time.Second
	DefaultAnswerTimeout     = 2 * time.Minute
)

// ErrAnswerStalled matches the error of an answer whose body stopped
// coming (or came too slowly) after its headers.
var ErrAnswerStalled = errors.New("the server stopped sending its answer")

// answerBody is a response body whose request can be cancelled on its
// own (its attempt's context): the reader of a JSON answer cancels it
// when the body stalls. Close releases the context.
type answerBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   *time.Timer // reset on every byte while watched
	d      time.Duration
}

func (b *answerBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.idle != nil {
		b.idle.Reset(b.d)
	}
	return n, err
}

func (b *answerBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// wrapAnswer gives resp's body its own cancel (the attempt's context).
func wrapAnswer(ctx context.Context, cancel context.CancelCauseFunc, resp *http.Response) {
	resp.Body = &answerBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel}
}

// readAnswer reads at most limit bytes of resp's body, failing with an
// error matching ErrAnswerStalled when no byte comes for c.answerIdle,
// the body is not complete within c.answerTotal, or (lease not zero: a
// call carrying a claim token) the claim's lease ends first (at least a
// second is given). The error says which.
func (c *Client) readAnswer(resp *http.Response, limit int64, lease time.Time) ([]byte, error) {
	b, ok := resp.Body.(*answerBody)
	if !ok {
		return io.ReadAll(io.LimitReader(resp.Body, limit))
	}
	var timers []*time.Timer
	if c.answerIdle > 0 {
		b.d = c.answerIdle
		b.idle = time.AfterFunc(c.answerIdle, func() {
			b.cancel(fmt.Errorf("%w: no byte for %s after the headers (the answer's idle timeout)", ErrAnswerStalled, c.answerIdle))
		})
		timers = append(timers, b.idle)
	}
	if c.answerTotal > 0 {
		timers = append(timers, time.AfterFunc(c.answerTotal, func() {
			b.cancel(fmt.Errorf("%w: the answer was not complete within %s (the answer timeout)", ErrAnswerStalled, c.answerTotal))
		}))
	}
	if !lease.IsZero() {
		d := max(lease.Sub(c.now()), time.Second)
		timers = append(timers, time.AfterFunc(d, func() {
			b.cancel(fmt.Errorf("%w: the claim's lease ended (%s) before the answer was complete", ErrAnswerStalled, lease.UTC().Format(time.RFC3339)))
		}))
	}
	raw, err := io.ReadAll(io.LimitReader(b, limit))
	for _, t := range timers {
		t.Stop()
	}
	b.idle = nil
	if err != nil {
		if cause := context.Cause(b.ctx); errors.Is(cause, ErrAnswerStalled) {
			return raw, cause
		}
	}
	return raw, err
}
