package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// eventNames records the event sequence.
func eventNames(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case Failed:
			out = append(out, "Failed:"+string(e.Step))
		default:
			out = append(out, fmt.Sprintf("%T", ev)[len("worker."):])
		}
	}
	return out
}

func TestProcessAcknowledgesVerifiedStoredEntry(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("http2=%v", h2), func(t *testing.T) {
			e := newEnv(t, h2)
			data := payload(300 << 10)
			entry := e.add(t, data, partnersim.PayloadFault{})
			var evs []Event
			var sawProgress *apiclient.Progress
			res, err := e.process(t.Context(), entry, procOpts{Ack: true, OnEvent: func(ev Event) {
				evs = append(evs, ev)
				if d, ok := ev.(Downloading); ok {
					sawProgress = d.Progress
				}
			}})
			require.NoError(t, err)
			require.True(t, res.OK())
			require.Equal(t, []string{"Claimed", "Downloading", "Verified", "Stored", "Acknowledged"}, eventNames(evs))
			require.NotNil(t, sawProgress)
			snap := sawProgress.Snapshot()
			require.True(t, snap.Done)
			require.Equal(t, int64(len(data)), snap.Bytes)

			require.True(t, res.Acknowledged)
			require.False(t, res.Receipt.Replay)
			got, err := os.ReadFile(res.Stored.Path)
			require.NoError(t, err)
			require.Equal(t, data, got)
			require.Equal(t, res.Receipt.ReceiptID, res.Stored.Meta.ReceiptID)
			side, err := e.store.Lookup(testConn, entry.DeliveryAttemptID)
			require.NoError(t, err)
			require.Equal(t, res.Receipt.ReceiptID, side.Meta.ReceiptID, "receipt durable in the sidecar")
			require.Equal(t, entry.PayloadSHA256, side.Meta.SHA256)
			require.False(t, entry.CreatedAt.IsZero())
			require.True(t, entry.CreatedAt.Equal(side.Meta.CreatedAt), "the server's createdAt is kept (answers are linked by it)")

			st, ok := e.sim.Entry(testConn, entry.DeliveryAttemptID)
			require.True(t, ok)
			require.Equal(t, partnersim.StatusAcknowledged, st.Status)
			e.requireNoLeak(t)
		})
	}
}

func TestProcessWithoutAckLeavesLease(t *testing.T) {
	e := newEnv(t, false)
	entry := e.add(t, payload(4096), partnersim.PayloadFault{})
	res, err := e.process(t.Context(), entry, procOpts{})
	require.NoError(t, err)
	require.False(t, res.Acknowledged)
	require.NotNil(t, res.Stored)
	require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))

	// The lease runs out, the entry is due again; fetching it again stores
	// nothing new and may acknowledge.
	e.clock.Advance(partnersim.LeaseDuration + time.Second)
	entry = e.add(t, nil, partnersim.PayloadFault{}) // a second entry, to prove order
	first, err := e.head(t.Context())
	require.NoError(t, err)
	require.Equal(t, res.Entry.DeliveryAttemptID, first.DeliveryAttemptID, "the expired entry is listed first again")
	again, err := e.process(t.Context(), first, procOpts{Ack: true})
	require.NoError(t, err)
	require.True(t, again.Stored.AlreadyStored)
	require.True(t, again.Acknowledged)
	require.NotEqual(t, entry.DeliveryAttemptID, again.Entry.DeliveryAttemptID)
}

// TestFaultMatrix: every broken delivery fails at the right step, names the
// failed check, stores nothing and sends no acknowledge.
func TestFaultMatrix(t *testing.T) {
	const size = 200 << 10
	cases := []struct {
		name   string
		fault  partnersim.PayloadFault
		ep     *partnersim.EndpointFault
		step   Step
		names  []string // substrings the error must contain
		claim  bool     // a claim happened (so a lease is left)
		api    bool     // the cause is an *apiclient.APIError
		cancel bool
	}{
		{name: "truncated, honest trailer", fault: partnersim.PayloadFault{Truncate: true, TruncateAt: size / 2}, step: StepVerify, names: []string{"sizeHeader", "hashHeader", "sizeListing", "hashListing", "trailer"}, claim: true},
		{name: "truncated, lying trailer", fault: partnersim.PayloadFault{Truncate: true, TruncateAt: size / 2, Trailer: partnersim.TrailerVerified}, step: StepVerify, names: []string{"sizeHeader", "hashHeader"}, claim: true},
		{name: "wrong size header", fault: partnersim.PayloadFault{WrongSizeHeader: true}, step: StepVerify, names: []string{"sizeHeader"}, claim: true},
		{name: "wrong hash header", fault: partnersim.PayloadFault{WrongHashHeader: true}, step: StepVerify, names: []string{"hashHeader"}, claim: true},
		{name: "listing size differs", fault: partnersim.PayloadFault{WrongListingSize: true}, step: StepVerify, names: []string{"sizeListing"}, claim: true},
		{name: "listing hash differs", fault: partnersim.PayloadFault{WrongListingHash: true}, step: StepVerify, names: []string{"hashListing"}, claim: true},
		{name: "trailer failed", fault: partnersim.PayloadFault{Trailer: partnersim.TrailerFailed}, step: StepVerify, names: []string{"trailer"}, claim: true},
		{name: "trailer absent", fault: partnersim.PayloadFault{Trailer: partnersim.TrailerAbsent}, step: StepVerify, names: []string{"trailer"}, claim: true},
		{name: "reset mid-body", fault: partnersim.PayloadFault{Reset: true, ResetAt: size / 3}, step: StepDownload, names: []string{"read failed"}, claim: true},
		{name: "reset after last byte", fault: partnersim.PayloadFault{Reset: true, ResetAt: size}, step: StepDownload, names: []string{"read failed"}, claim: true},
		{name: "slow stream cancelled", fault: partnersim.PayloadFault{BytesPerSecond: 64 << 10}, step: StepDownload, names: []string{"read failed"}, claim: true, cancel: true},
		{name: "payload 500", ep: &partnersim.EndpointFault{Endpoint: partnersim.EndpointPayload, Status: 500}, step: StepDownload, names: []string{"ERR_B2B_EXCHANGE_INTERNAL"}, claim: true, api: true},
		{name: "claim 404", ep: &partnersim.EndpointFault{Endpoint: partnersim.EndpointClaim, Status: 404}, step: StepClaim, names: []string{"ERR_B2B_EXCHANGE_NOT_FOUND"}, api: true},
	}
	for _, h2 := range []bool{false, true} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/http2=%v", tc.name, h2), func(t *testing.T) {
				e := newEnv(t, h2)
				entry := e.add(t, payload(size), tc.fault)
				if tc.ep != nil {
					e.sim.InjectFault(*tc.ep)
				}
				ctx := t.Context()
				var events []Event
				opts := procOpts{Ack: true, OnEvent: func(ev Event) { events = append(events, ev) }}
				if tc.cancel {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					opts.OnEvent = func(ev Event) {
						events = append(events, ev)
						if _, ok := ev.(Downloading); ok {
							time.AfterFunc(300*time.Millisecond, cancel)
						}
					}
				}
				res, err := e.process(ctx, entry, opts)
				require.Error(t, err)
				var se *StepError
				require.ErrorAs(t, err, &se)
				require.Equal(t, tc.step, se.Step)
				require.Equal(t, tc.step, res.FailedStep)
				for _, n := range tc.names {
					require.Contains(t, err.Error(), n)
				}
				require.Contains(t, err.Error(), "not acknowledged")
				if tc.claim {
					require.Contains(t, err.Error(), "lease expires at")
					require.False(t, se.LeaseExpiresAt.IsZero())
				}
				var ae *apiclient.APIError
				require.Equal(t, tc.api, errors.As(err, &ae))
				if tc.step == StepVerify || (tc.step == StepDownload && !tc.api) {
					require.ErrorIs(t, err, apiclient.ErrIntegrity)
				}
				require.Equal(t, "Failed:"+string(tc.step), eventNames(events)[len(events)-1])

				require.False(t, res.Acknowledged)
				require.Nil(t, res.Stored)
				require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""), "no acknowledge request was sent")
				require.Empty(t, e.deliveryFiles(t), "nothing stored, no temp left")
				if tc.claim {
					st, _ := e.sim.Entry(testConn, entry.DeliveryAttemptID)
					require.Equal(t, partnersim.StatusClaimed, st.Status, "the lease is left to expire")
				}
				e.requireNoLeak(t, err.Error())
			})
		}
	}
}

func TestStorageFailures(t *testing.T) {
	data := payload(64 << 10)
	t.Run("conflicting copy already stored", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, data, partnersim.PayloadFault{})
		w, err := e.store.Begin(testConn, entry.DeliveryAttemptID)
		require.NoError(t, err)
		_, _ = w.Write([]byte("different"))
		_, err = w.Commit(spool.Meta{Size: 9, SHA256: "4a1b13b45c8e2ee3ae8ad0dd8dee1a4c7ac9ef2f6d8ef04dd7be0883b2b12dd2"})
		require.NoError(t, err)

		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.ErrorIs(t, err, spool.ErrConflict)
		require.Equal(t, StepStore, res.FailedStep)
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
		require.Len(t, e.deliveryFiles(t), 2, "only the earlier copy")
	})
	t.Run("deliveries directory vanishes during the download", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, data, partnersim.PayloadFault{})
		dir := filepath.Join(e.store.Root(), testConn, "deliveries")
		res, err := e.process(t.Context(), entry, procOpts{Ack: true, OnEvent: func(ev Event) {
			if _, ok := ev.(Downloading); ok {
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, os.WriteFile(dir, nil, 0o600)) // and something else takes its place
			}
		}})
		require.Error(t, err)
		require.Equal(t, StepStore, res.FailedStep)
		require.NotNil(t, res.Report)
		require.True(t, res.Report.OK(), "the download itself was fine")
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	})
	t.Run("export fails", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, data, partnersim.PayloadFault{})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true, Export: func(st *spool.Stored) error {
			require.FileExists(t, st.Path, "export runs after the durable store")
			return errors.New("disk full")
		}})
		require.ErrorContains(t, err, "disk full")
		require.Equal(t, StepExport, res.FailedStep)
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
	})
	t.Run("spool unusable before claiming", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, data, partnersim.PayloadFault{})
		require.NoError(t, os.MkdirAll(filepath.Join(e.store.Root(), testConn), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(e.store.Root(), testConn, "deliveries"), nil, 0o600))
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.Error(t, err)
		require.Equal(t, StepStore, res.FailedStep)
		require.Zero(t, e.sim.RequestCount(partnersim.EndpointClaim, ""), "no lease wasted")
		require.NotContains(t, err.Error(), "lease expires")
	})
}

func TestAcknowledgeFailureAndReplay(t *testing.T) {
	t.Run("ack answered 500: stored, not acknowledged", func(t *testing.T) {
		e := newEnv(t, false)
		entry := e.add(t, payload(8192), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointAcknowledge, Status: 500})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.ErrorIs(t, err, apiclient.ErrInternal)
		require.Equal(t, StepAcknowledge, res.FailedStep)
		require.NotNil(t, res.Stored)
		require.False(t, res.Acknowledged)
		side, err := e.store.Lookup(testConn, entry.DeliveryAttemptID)
		require.NoError(t, err)
		require.False(t, side.Meta.Acknowledged())
	})
	t.Run("dropped ack response is replayed with the same token", func(t *testing.T) {
		e := newEnv(t, true)
		entry := e.add(t, payload(8192), partnersim.PayloadFault{})
		e.sim.InjectFault(partnersim.EndpointFault{Endpoint: partnersim.EndpointAcknowledge, DropResponse: true, Times: 1})
		res, err := e.process(t.Context(), entry, procOpts{Ack: true})
		require.NoError(t, err)
		require.True(t, res.Acknowledged)
		require.True(t, res.Receipt.Replay)
		require.Equal(t, 2, e.sim.RequestCount(partnersim.EndpointAcknowledge, ""))
		e.requireNoLeak(t)
	})
}

// BenchmarkProcess16MiB: the whole worker for one 16 MiB entry over
// loopback HTTP/1.1 — claim, streamed download with hashing, all checks,
// fsync+rename+dir fsync, sidecar, acknowledge, receipt recorded.
func BenchmarkProcess16MiB(b *testing.B) {
	e := newEnv(b, false)
	data := payload(16 << 20)[:16<<20]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		entry := e.add(b, data, partnersim.PayloadFault{})
		b.StartTimer()
		res, err := e.process(b.Context(), entry, procOpts{Ack: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = os.Remove(res.Stored.Path) // keep the disk from filling up
		b.StartTimer()
	}
}
