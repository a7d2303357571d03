package conntab

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/fakeclock"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

const testTab common.TabID = 7

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fakeBackend serves pages from memory and hands out fake leases. A
// claimed entry leaves the listing, like on the server.
type fakeBackend struct {
	mu       sync.Mutex
	clock    *fakeclock.Clock
	entries  []apiclient.Entry
	claims   []string
	leases   []*fakeLease
	fetchErr map[string]error // Fetch fails for these IDs
	refused  map[string]bool  // listed, but as entries the client refuses (Page.Skipped)
	relist   bool             // the server keeps listing claimed and acknowledged entries
	block    map[string]bool  // Fetch waits for its context to end
	local    map[string]error // Fetch stops on this side: every check not run, this cause
	skew     time.Duration    // the leases' ClockSkew
}

func (b *fakeBackend) List(ctx context.Context, limit int, cursor string) (*apiclient.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	start := 0
	if cursor != "" {
		if _, err := fmt.Sscanf(cursor, "c%d", &start); err != nil {
			return nil, err
		}
	}
	start = min(start, len(b.entries))
	end := min(start+limit, len(b.entries))
	p := &apiclient.Page{HasMore: end < len(b.entries), CorrelationID: "corr-list"}
	for i, e := range b.entries[start:end] {
		if b.refused[e.DeliveryAttemptID] {
			p.Skipped = append(p.Skipped, apiclient.SkippedEntry{Index: i, DeliveryAttemptID: e.DeliveryAttemptID, Reason: "payloadSha256 is not 64 hex digits"})
			continue
		}
		p.Entries = append(p.Entries, e)
	}
	if p.HasMore {
		p.NextCursor = fmt.Sprintf("c%d", end)
	}
	return p, nil
}

func (b *fakeBackend) Pages(ctx context.Context, limit int) iter.Seq2[*apiclient.Page, error] {
	return func(yield func(*apiclient.Page, error) bool) {
		cursor := ""
		for {
			p, err := b.List(ctx, limit, cursor)
			if !yield(p, err) || err != nil || !p.HasMore {
				return
			}
			cursor = p.NextCursor
		}
	}
}

func (b *fakeBackend) Claim(_ context.Context, e apiclient.Entry, _ worker.ClaimOptions) (worker.Held, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.claims = append(b.claims, e.DeliveryAttemptID)
	if !b.relist {
		b.entries = slices.DeleteFunc(b.entries, func(x apiclient.Entry) bool { return x.DeliveryAttemptID == e.DeliveryAttemptID })
	}
	l := &fakeLease{entry: e, expires: b.clock.Now().Add(5 * time.Minute), clock: b.clock, fetchErr: b.fetchErr[e.DeliveryAttemptID],
		block: b.block[e.DeliveryAttemptID], local: b.local[e.DeliveryAttemptID], skew: b.skew}
	b.leases = append(b.leases, l)
	return l, nil
}

func (b *fakeBackend) claimed() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.claims)
}

func (b *fakeBackend) lastLease() *fakeLease {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leases[len(b.leases)-1]
}

// fakeLease follows worker.Lease's rules: CanAck only after a successful
// Fetch and within the lease.
type fakeLease struct {
	mu       sync.Mutex
	entry    apiclient.Entry
	expires  time.Time
	clock    *fakeclock.Clock
	fetchErr error
	block    bool
	local    error
	skew     time.Duration
	verified bool
	acks     int
	fetches  int
	released bool
}

func (l *fakeLease) Entry() apiclient.Entry   { return l.entry }
func (l *fakeLease) ExpiresAt() time.Time     { return l.expires }
func (l *fakeLease) Deadline() time.Time      { return l.expires }
func (l *fakeLease) ClockSkew() time.Duration { return l.skew }
func (l *fakeLease) CorrelationID() string    { return "corr-lease" }
func (l *fakeLease) Remaining() time.Duration { return max(l.expires.Sub(l.clock.Now()), 0) }

func (l *fakeLease) Fetch(ctx context.Context, _ worker.FetchOptions) (*worker.Result, error) {
	if l.block {
		<-ctx.Done()
		l.local = context.Cause(ctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fetches++
	res := &worker.Result{Entry: l.entry}
	if l.local != nil {
		rep := &apiclient.IntegrityReport{DeliveryAttemptID: l.entry.DeliveryAttemptID, LocalStop: fmt.Errorf("stopped here: %w", l.local)}
		for _, c := range []*apiclient.CheckResult{&rep.SizeHeader, &rep.SizeListing, &rep.HashHeader, &rep.HashListing, &rep.TrailerCheck} {
			c.NotRun, c.Detail = true, "not run: the download was stopped here"
		}
		rep.SizeHeader.Name, rep.SizeListing.Name, rep.HashHeader.Name = apiclient.CheckSizeHeader, apiclient.CheckSizeListing, apiclient.CheckHashHeader
		rep.HashListing.Name, rep.TrailerCheck.Name = apiclient.CheckHashListing, apiclient.CheckTrailer
		err := &apiclient.IntegrityError{Report: rep}
		res.Report, res.FailedStep, res.Err = rep, worker.StepDownload, err
		return res, err
	}
	if l.fetchErr != nil {
		res.FailedStep, res.Err = worker.StepVerify, l.fetchErr
		return res, l.fetchErr
	}
	l.verified = true
	return res, nil
}

func (l *fakeLease) CanAck() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.released:
		return worker.ErrReleased
	case !l.verified:
		return fmt.Errorf("acknowledge %s: %w", l.entry.DeliveryAttemptID, worker.ErrNotVerified)
	case l.Remaining() <= 0:
		return worker.ErrLeaseExpired
	}
	return nil
}

func (l *fakeLease) Ack(context.Context) (*worker.Result, error) {
	if err := l.CanAck(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acks++
	return &worker.Result{Entry: l.entry, Acknowledged: true,
		Receipt: &apiclient.Receipt{ReceiptID: "rcpt-" + l.entry.DeliveryAttemptID, AcknowledgedAt: l.clock.Now()}}, nil
}

func (l *fakeLease) Release() {
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
}

func (l *fakeLease) ackCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

func testEntries(n int) []apiclient.Entry {
	out := make([]apiclient.Entry, n)
	types := []string{"ORDRSP", "CONTRL", "APERAK"}
	for i := range out {
		out[i] = apiclient.Entry{
			DeliveryAttemptID: fmt.Sprintf("da-%05d", i),
			InterchangeID:     fmt.Sprintf("ic-%05d", i),
			MessageType:       types[i%3],
			PayloadSize:       int64(1000 + i),
			PayloadSHA256:     strings.Repeat(fmt.Sprintf("%x", i%16), 64),
			Status:            "due",
			CreatedAt:         t0.Add(-time.Duration(n-i) * time.Minute),
		}
	}
	return out
}

// newTest builds a tab over n fake entries with the first page loaded.
// Ticks are not scheduled (tests deliver tickMsg themselves).
func newTest(t testing.TB, n, pageSize int) (Model, *fakeBackend, *fakeclock.Clock) {
	t.Helper()
	return newTestWith(t, n, pageSize, nil)
}

// newTestWith is newTest with options changed by opt (nil: none).
func newTestWith(t testing.TB, n, pageSize int, opt func(*Options)) (Model, *fakeBackend, *fakeclock.Clock) {
	t.Helper()
	clk := fakeclock.New(t0)
	be := &fakeBackend{clock: clk, entries: testEntries(n)}
	c := &common.Common{Width: 120, Height: 40, Styles: common.NewStyles(true), Now: clk.Now}
	o := Options{PageSize: pageSize, Name: "acme-de"}
	if opt != nil {
		opt(&o)
	}
	m := newModel(c, testTab, be, o)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m, _ = settle(t, m, m.Init())
	require.True(t, m.pager.loaded)
	return m, be, clk
}

// keyMsg is the key message of a key by its name (commontest.Key).
var keyMsg = commontest.Key

// press sends a key and runs what it starts to the end (settle).
func press(t testing.TB, m Model, k string) (Model, []tea.Msg) {
	t.Helper()
	m, cmd := m.Update(keyMsg(k))
	return settle(t, m, cmd)
}

// settle is a synchronous event loop: it runs cmd, feeds the tab's own
// results back into Update until nothing is left, and returns the
// footer notes (common.Info, common.ErrorMsg). Batches run in order, so a
// job's work runs before its retry watcher.
func settle(t testing.TB, m Model, cmd tea.Cmd) (Model, []tea.Msg) {
	t.Helper()
	var notes []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(append([]tea.Cmd{}, msg...), queue...)
		case common.Info, common.ErrorMsg, common.Copy:
			notes = append(notes, msg)
		case common.Exec: // the editor: run it here, as the program would with the terminal
			err := msg.Cmd.Run()
			done := msg.Done(err)
			queue = append(queue, func() tea.Msg { return done })
		case common.Owned:
			var next tea.Cmd
			m, next = m.Update(msg)
			queue = append(queue, next)
		default:
			t.Fatalf("unexpected message %T", msg)
		}
	}
	return m, notes
}

// infoText joins the text of the notes.
func infoText(msgs []tea.Msg) string {
	var parts []string
	for _, m := range msgs {
		switch m := m.(type) {
		case common.Info:
			parts = append(parts, m.Text)
		case common.ErrorMsg:
			parts = append(parts, m.Line())
		}
	}
	return strings.Join(parts, "\n")
}

// overlaid reports whether a screen lies over the mailbox (the tab's
// stack is not empty).
func overlaid(m Model) bool { return m.stack.Len() > 0 }

// topOf is the screen on top of the tab's stack when it is a T, else nil.
func topOf[T any](m Model) *T {
	if s, ok := m.stack.Top().(T); ok {
		return &s
	}
	return nil
}

// topViewer is the viewer on top of the tab's stack, nil when there is
// none.
func topViewer(m Model) *viewer.Model {
	if v, ok := viewer.FromScreen(m.stack.Top()); ok {
		return &v
	}
	return nil
}

// openedViewer is the viewer an Opened carries.
func openedViewer(o common.Opened) viewer.Model {
	v, _ := viewer.FromScreen(o.Screen)
	return v
}
