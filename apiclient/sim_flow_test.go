package apiclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestSimFullFlow: list with cursors, claim (entry leaves the list),
// verified download, acknowledge, acknowledge again → same receipt, replay.
func TestSimFullFlow(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		ctx := t.Context()
		var ids []string
		for i := range 5 {
			ids = append(ids, e.add(payload(1000+i), partnersim.PayloadFault{}))
		}
		var listed []string
		pages := 0
		for p, err := range c.Pages(ctx, 2) {
			require.NoError(t, err)
			pages++
			for _, en := range p.Entries {
				listed = append(listed, en.DeliveryAttemptID)
				require.Equal(t, "ORDRSP", en.MessageType)
				require.Equal(t, "due", en.Status)
			}
		}
		require.Equal(t, ids, listed, "in the order given, across cursor pages")
		require.Equal(t, 3, pages)

		en := e.entry(c, ids[0])
		claim, err := c.Claim(ctx, ids[0])
		require.NoError(t, err)
		require.Equal(t, e.clock.Now().Add(partnersim.LeaseDuration), claim.ExpiresAt.UTC())
		p, err := c.ListMailbox(ctx, 0, "")
		require.NoError(t, err)
		require.Len(t, p.Entries, 4, "a claimed entry vanishes from the list")

		var sink bytes.Buffer
		var prog apiclient.Progress
		rep, err := c.Download(ctx, claim, en.Expect(), &sink, &prog)
		require.NoError(t, err)
		require.True(t, rep.OK())
		require.Equal(t, payload(1000), sink.Bytes())
		require.Equal(t, "verified", rep.Trailer)
		require.Equal(t, apiclient.ProgressSnapshot{Bytes: 1000, Expected: 1000, Done: true},
			apiclient.ProgressSnapshot{Bytes: prog.Snapshot().Bytes, Expected: prog.Snapshot().Expected, Done: prog.Snapshot().Done})

		r1, err := c.Acknowledge(ctx, claim)
		require.NoError(t, err)
		require.False(t, r1.Replay)
		require.NotEmpty(t, r1.ReceiptID)
		r2, err := c.Acknowledge(ctx, claim)
		require.NoError(t, err)
		require.True(t, r2.Replay)
		require.Equal(t, r1.ReceiptID, r2.ReceiptID)
		st, _ := e.sim.Entry(simConn, ids[0])
		require.Equal(t, partnersim.StatusAcknowledged, st.Status)

		// Correlation IDs reach the server, one per operation.
		seen := map[string]bool{}
		for _, r := range e.sim.Requests() {
			require.Len(t, r.CorrelationID, 32)
			seen[r.CorrelationID] = true
		}
		require.Equal(t, len(e.sim.Requests()), len(seen))
	})
}

// TestSimFaultMatrix: every payload fault fails Download and the report
// names the failed checks.
func TestSimFaultMatrix(t *testing.T) {
	all := []string{apiclient.CheckSizeHeader, apiclient.CheckSizeListing, apiclient.CheckHashHeader, apiclient.CheckHashListing, apiclient.CheckTrailer}
	tests := []struct {
		name    string
		fault   partnersim.PayloadFault
		failed  []string
		readErr bool
	}{
		{"truncate", partnersim.PayloadFault{Truncate: true, TruncateAt: 10_000}, all, false},
		{"truncate, lying trailer", partnersim.PayloadFault{Truncate: true, TruncateAt: 10_000, Trailer: partnersim.TrailerVerified}, all[:4], false},
		{"wrong size header", partnersim.PayloadFault{WrongSizeHeader: true}, []string{apiclient.CheckSizeHeader}, false},
		{"wrong hash header", partnersim.PayloadFault{WrongHashHeader: true}, []string{apiclient.CheckHashHeader}, false},
		{"listing size mismatch", partnersim.PayloadFault{WrongListingSize: true}, []string{apiclient.CheckSizeListing}, false},
		{"listing hash mismatch", partnersim.PayloadFault{WrongListingHash: true}, []string{apiclient.CheckHashListing}, false},
		{"trailer failed", partnersim.PayloadFault{Trailer: partnersim.TrailerFailed}, []string{apiclient.CheckTrailer}, false},
		{"no trailer", partnersim.PayloadFault{Trailer: partnersim.TrailerAbsent}, []string{apiclient.CheckTrailer}, false},
		{"reset mid-body", partnersim.PayloadFault{Reset: true, ResetAt: 20_000}, all, true},
		{"reset after every byte", partnersim.PayloadFault{Reset: true, ResetAt: 1 << 20}, []string{apiclient.CheckTrailer}, true},
	}
	for _, m := range modes {
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) {
				e := newSimEnv(t, m.mode)
				c := e.client(simConn)
				body := payload(64 << 10)
				id := e.add(body, tt.fault)
				en := e.entry(c, id)
				claim, err := c.Claim(t.Context(), id)
				require.NoError(t, err)
				var sink bytes.Buffer
				rep, err := c.Download(t.Context(), claim, en.Expect(), &sink, nil)
				require.ErrorIs(t, err, apiclient.ErrIntegrity)
				var ie *apiclient.IntegrityError
				require.ErrorAs(t, err, &ie)
				require.False(t, rep.OK())
				var names []string
				for _, ch := range rep.Failed() {
					names = append(names, ch.Name)
					require.Contains(t, err.Error(), ch.Name+" failed")
				}
				require.Equal(t, tt.failed, names)
				require.Equal(t, tt.readErr, rep.ReadErr != nil, "ReadErr %v", rep.ReadErr)
				require.Equal(t, int64(sink.Len()), rep.Bytes)
				require.NotContains(t, err.Error(), simToken)
				require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
			})
		}
	}
}

func TestSimSlowStreamCancel(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		body := payload(1 << 20)
		id := e.add(body, partnersim.PayloadFault{BytesPerSecond: 64 << 10})
		en := e.entry(c, id)
		claim, err := c.Claim(t.Context(), id)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		var prog apiclient.Progress
		go func() {
			for prog.Snapshot().Bytes == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		rep, err := c.Download(ctx, claim, en.Expect(), &bytes.Buffer{}, &prog)
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, apiclient.ErrIntegrity)
		require.Less(t, rep.Bytes, int64(len(body)))
		require.True(t, prog.Snapshot().Done)
	})
}

// TestSimSlowStreamStall: a stream that slows to a trickle below one chunk
// per stall window is aborted by the watchdog.
func TestSimSlowStreamStall(t *testing.T) {
	e := newSimEnv(t, partnersim.HTTP1)
	c := e.client(simConn, func(cfg *apiclient.Config) { cfg.StallTimeout = 150 * time.Millisecond })
	id := e.add(payload(4096), partnersim.PayloadFault{BytesPerSecond: 1})
	claim, err := c.Claim(t.Context(), id)
	require.NoError(t, err)
	_, err = c.Download(t.Context(), claim, apiclient.Expect{Size: 4096, SHA256: hexSum(payload(4096))}, &bytes.Buffer{}, nil)
	require.ErrorIs(t, err, apiclient.ErrIntegrity)
	require.ErrorContains(t, err, "stall")
}

// TestSimAckReplayAfterDroppedResponse: the server records the ack, the
// answer is lost, the client retries with the same token and gets the
// original receipt as a replay.
func TestSimAckReplayAfterDroppedResponse(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		id := e.add(payload(500), partnersim.PayloadFault{})
		claim, err := c.Claim(t.Context(), id)
		require.NoError(t, err)
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointAcknowledge, Times: 1, DropResponse: true})
		rc, err := c.Acknowledge(t.Context(), claim)
		require.NoError(t, err)
		require.True(t, rc.Replay)
		st, _ := e.sim.Entry(simConn, id)
		require.Equal(t, st.ReceiptID, rc.ReceiptID)
		e.eventually(func() bool { return e.sim.RequestCount(partnersim.EndpointAcknowledge, id) == 2 })
		var corr []string
		for _, r := range e.sim.Requests() {
			if r.Endpoint == partnersim.EndpointAcknowledge {
				corr = append(corr, r.CorrelationID)
			}
		}
		require.Equal(t, corr[0], corr[1], "same correlation across the retry")
		require.Equal(t, rc.CorrelationID, corr[0])
	})
}

// TestSimClaimConflictAndNoBlindReclaim: a claim during an active lease is
// 409; a claim whose answer was lost is not repeated by the client (the
// repeat would be exactly that conflict).
func TestSimClaimConflictAndNoBlindReclaim(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		a := e.add(payload(10), partnersim.PayloadFault{})
		b := e.add(payload(20), partnersim.PayloadFault{})
		_, err := c.Claim(t.Context(), a)
		require.NoError(t, err)
		_, err = c.Claim(t.Context(), a)
		var ae *apiclient.APIError
		require.ErrorAs(t, err, &ae)
		require.ErrorIs(t, err, apiclient.ErrConflict)
		require.Equal(t, 409, ae.HTTPStatus)
		require.Equal(t, apiclient.CodeConflict, ae.Code)

		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, Entry: b, Times: 1, DropResponse: true})
		_, err = c.Claim(t.Context(), b)
		var ne *apiclient.NetworkError
		require.ErrorAs(t, err, &ne)
		require.True(t, ne.Unclear)
		// The sim logs a dropped request after cutting the connection.
		e.eventually(func() bool { return e.sim.RequestCount(partnersim.EndpointClaim, b) == 1 })
		time.Sleep(20 * time.Millisecond)
		require.Equal(t, 1, e.sim.RequestCount(partnersim.EndpointClaim, b), "never re-claimed blindly")
		st, _ := e.sim.Entry(simConn, b)
		require.Equal(t, partnersim.StatusClaimed, st.Status, "the lost claim did happen")
		require.Empty(t, e.waits.Waits())
	})
}

// TestSimLeaseExpiry: after five minutes on the fake clock the entry is
// due again, the old token is refused, and after the attempt limit the
// entry fails and leaves the list.
func TestSimLeaseExpiry(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		id := e.add(payload(100), partnersim.PayloadFault{})
		old, err := c.Claim(t.Context(), id)
		require.NoError(t, err)
		e.clock.Advance(partnersim.LeaseDuration + time.Second)
		en := e.entry(c, id)
		_, err = c.Download(t.Context(), old, en.Expect(), &bytes.Buffer{}, nil)
		require.ErrorIs(t, err, apiclient.ErrNotFound, "an expired lease's token is refused")
		_, err = c.Acknowledge(t.Context(), old)
		require.ErrorIs(t, err, apiclient.ErrNotFound)
		for i := 2; i <= partnersim.AttemptLimit; i++ {
			_, err = c.Claim(t.Context(), id)
			require.NoError(t, err, "claim %d", i)
			e.clock.Advance(partnersim.LeaseDuration + time.Second)
		}
		st, _ := e.sim.Entry(simConn, id)
		require.Equal(t, partnersim.StatusFailed, st.Status)
		p, err := c.ListMailbox(t.Context(), 0, "")
		require.NoError(t, err)
		require.Empty(t, p.Entries)
	})
}

// TestSimUnavailableStorm: 503 with Retry-After three times, then success;
// each wait is the server's Retry-After (longer than the schedule's 30 s,
// shorter than its 2 and 10 min).
func TestSimUnavailableStorm(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		e.add(payload(10), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Times: 3, Status: 503, RetryAfter: 90 * time.Second})
		var events []apiclient.RetryEvent
		c2 := e.client(simConn, func(cfg *apiclient.Config) {
			cfg.Retry.Notify = func(ev apiclient.RetryEvent) { events = append(events, ev) }
		})
		_ = c
		p, err := c2.ListMailbox(t.Context(), 0, "")
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		require.Equal(t, []time.Duration{90 * time.Second, 90 * time.Second, 90 * time.Second}, e.waits.Waits())
		require.Len(t, events, 3)
		require.Equal(t, e.clock.Now().Add(90*time.Second), events[0].NextAt)

		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointList, Times: 1, Status: 500})
		_, err = c2.ListMailbox(t.Context(), 0, "")
		require.ErrorIs(t, err, apiclient.ErrInternal)
		require.Len(t, events, 3, "500 is not retried")
	})
}

// TestSimAuthFailuresAre404WithScopeAction: missing scope, foreign
// connection, wrong secret, other tenant — all 404 with an action that
// explains key binding and scope.
func TestSimAuthFailuresAre404WithScopeAction(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := newSimEnv(t, m.mode)
			id := e.add(payload(10), partnersim.PayloadFault{})
			withKey := func(k, s string) func(*apiclient.Config) {
				return func(cfg *apiclient.Config) {
					cfg.Credentials = apiclient.StaticCredentials{Inbox: cred(k, s), Mailbox: cred(k, s)}
				}
			}
			listOnly := e.client(simConn, withKey(keyListOnly, simSecret+"-l"))
			_, err := listOnly.ListMailbox(t.Context(), 0, "")
			require.NoError(t, err, "the list scope is enough to list")
			cases := []struct {
				name  string
				c     *apiclient.Client
				call  func(*apiclient.Client) error
				scope apiclient.Scope
			}{
				{"no claim scope", listOnly, func(c *apiclient.Client) error { _, err := c.Claim(t.Context(), id); return err }, apiclient.ScopeMailboxClaim},
				{"no inbox scope", listOnly, func(c *apiclient.Client) error {
					_, err := c.Upload(t.Context(), "k-1", bytes.NewReader([]byte("UNA")), 3)
					return err
				}, apiclient.ScopeInboxCreate},
				{"inbox key lists", e.client(simConn, withKey(keyInbox, simSecret+"-i")), func(c *apiclient.Client) error { _, err := c.ListMailbox(t.Context(), 0, ""); return err }, apiclient.ScopeMailboxList},
				{"key bound to another connection", e.client(simOther), func(c *apiclient.Client) error { _, err := c.ListMailbox(t.Context(), 0, ""); return err }, apiclient.ScopeMailboxList},
				{"wrong secret", e.client(simConn, withKey(keyFull, "nope")), func(c *apiclient.Client) error { _, err := c.ListMailbox(t.Context(), 0, ""); return err }, apiclient.ScopeMailboxList},
				{"other tenant", e.client(simConn, withKey(keyOtherTen, simSecret+"-f")), func(c *apiclient.Client) error { _, err := c.ListMailbox(t.Context(), 0, ""); return err }, apiclient.ScopeMailboxList},
				{"unknown connection", e.client("conn-nope"), func(c *apiclient.Client) error { _, err := c.ListMailbox(t.Context(), 0, ""); return err }, apiclient.ScopeMailboxList},
			}
			for _, tc := range cases {
				err := tc.call(tc.c)
				var ae *apiclient.APIError
				require.ErrorAs(t, err, &ae, tc.name)
				require.Equal(t, 404, ae.HTTPStatus, tc.name)
				require.ErrorIs(t, err, apiclient.ErrNotFound, tc.name)
				require.Contains(t, ae.Action, "key's binding", tc.name)
				require.Contains(t, ae.Action, string(tc.scope), tc.name)
				require.NotContains(t, err.Error(), simSecret, tc.name)
			}
		})
	}
}

// TestSimUpload: 202, replay 200 for the same key and bytes, 409 for the
// same key with other bytes, the 16 MiB limit checked locally, and a lost
// answer retried with the same key.
func TestSimUpload(t *testing.T) {
	inEachMode(t, func(t *testing.T, e *simEnv, c *apiclient.Client) {
		ctx := t.Context()
		body := payload(2000)
		key, err := apiclient.IdempotencyKey("4012345000009", "PO 4711", 1)
		require.NoError(t, err)
		r1, err := c.Upload(ctx, key, bytes.NewReader(body), int64(len(body)))
		require.NoError(t, err)
		require.Equal(t, 202, r1.HTTPStatus)
		require.False(t, r1.Replay)
		r2, err := c.Upload(ctx, key, bytes.NewReader(body), int64(len(body)))
		require.NoError(t, err)
		require.Equal(t, 200, r2.HTTPStatus)
		require.True(t, r2.Replay)
		require.Equal(t, r1.UploadID, r2.UploadID)
		_, err = c.Upload(ctx, key, bytes.NewReader(payload(2001)), 2001)
		require.ErrorIs(t, err, apiclient.ErrConflict)

		big := make([]byte, apiclient.MaxPayloadSize+1)
		before := e.sim.RequestCount(partnersim.EndpointInbox, "")
		_, err = c.Upload(ctx, "k-big", bytes.NewReader(big), int64(len(big)))
		require.ErrorIs(t, err, apiclient.ErrPayloadTooLarge)
		require.Equal(t, before, e.sim.RequestCount(partnersim.EndpointInbox, ""), "refused before sending")

		key2, _ := apiclient.IdempotencyKey("4012345000009", "PO 4711", 2)
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointInbox, Times: 1, DropResponse: true})
		r3, err := c.Upload(ctx, key2, bytes.NewReader(payload(3000)), 3000)
		require.NoError(t, err)
		require.True(t, r3.Replay, "the lost first answer is replayed")
		e.eventually(func() bool { return e.sim.RequestCount(partnersim.EndpointInbox, "") == before+2 })
		ups := e.sim.Uploads(simConn)
		require.Len(t, ups, 2)
		require.Equal(t, key2, ups[1].IdempotencyKey)
		require.Equal(t, payload(3000), ups[1].Payload)
	})
}

func TestSimListLimits(t *testing.T) {
	e := newSimEnv(t, partnersim.HTTP1)
	c := e.client(simConn)
	for i := range 120 {
		e.add(payload(10+i), partnersim.PayloadFault{})
	}
	p, err := c.ListMailbox(t.Context(), 0, "")
	require.NoError(t, err)
	require.Len(t, p.Entries, partnersim.DefaultListLimit)
	p, err = c.ListMailbox(t.Context(), 100, "")
	require.NoError(t, err)
	require.Len(t, p.Entries, 100)
	require.True(t, p.HasMore)
	_, err = c.ListMailbox(t.Context(), 0, p.NextCursor+"x")
	require.ErrorIs(t, err, apiclient.ErrInvalidRequest, "a cursor the server did not issue")
	n := 0
	for p, err := range c.Pages(t.Context(), 7) {
		require.NoError(t, err)
		n += len(p.Entries)
	}
	require.Equal(t, 120, n)
	require.False(t, errors.Is(err, apiclient.ErrNotFound), fmt.Sprint(err))
}

// TestRateLimitWaitPastTheDeadlineSaysTheDeadline: when the next request
// slot comes after the caller's deadline, the limiter refuses at once
// with its own words; the call ends at the deadline and says why the
// caller set it (the overall --timeout), as every other wait does.
func TestRateLimitWaitPastTheDeadlineSaysTheDeadline(t *testing.T) {
	e := newSimEnv(t, partnersim.HTTP1)
	lim := rate.NewLimiter(rate.Every(time.Hour), 1)
	require.True(t, lim.Allow(), "the one slot of this hour is taken")
	c := e.client(simConn, func(cfg *apiclient.Config) { cfg.Limiter = lim })
	cause := errors.New("the overall --timeout of 50ms ran out")
	ctx, cancel := context.WithTimeoutCause(t.Context(), 50*time.Millisecond, cause)
	defer cancel()
	_, err := c.ListMailbox(ctx, 10, "")
	require.ErrorIs(t, err, cause)
	require.ErrorContains(t, err, "--timeout")
	require.ErrorContains(t, err, "waiting for the rate limit")
}
