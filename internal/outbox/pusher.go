package outbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/who"
)

// Remote is the team store as the outbox sees it; *teamstore.Store
// implements it. Every push is idempotent: pushing the same thing again
// changes nothing (pushing a delivery again after its receipt updates
// its acknowledgement).
type Remote interface {
	Ping(ctx context.Context) error
	PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error   // idempotent by (conn, deliveryAttemptId) + SHA-256; pushing again after the ack updates the ack state
	PushUpload(ctx context.Context, conn string, rec spool.UploadRecord, file []byte, by who.Who) error // idempotent by (conn, key, attempt); file nil when the sent copy is gone
	PushSeen(ctx context.Context, conn string, rec spool.SeenRecord, by who.Who) error
	PushCapture(ctx context.Context, name string, capture []byte, by who.Who) error // an `event listen` capture file
}

// CheckedPusher is a Remote that takes a delivery whose payload the
// pusher has checked against its sidecar's SHA-256 and size already, so
// the bytes are hashed once per push (a 16 MiB payload's SHA-256 takes
// ~12 ms of CPU). *teamstore.Remote implements it. A wrapper of a
// Remote that intercepts PushDelivery must intercept this too, or the
// wrapped one's is promoted past it.
type CheckedPusher interface {
	PushCheckedDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error
}

// Clock is what the pusher's retry waits need (internal/fakeclock in
// tests).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Defaults of PushOptions.
const (
	DefaultPoll        = 2 * time.Second
	DefaultMinBackoff  = time.Second
	DefaultMaxBackoff  = 5 * time.Minute
	DefaultPushTimeout = 2 * time.Minute
	pingTimeout        = 10 * time.Second
	syncEvery          = 64 // ledger fsync at least every this many pushes
	DefaultLinger      = 250 * time.Millisecond
)

// PushOptions configure a Pusher.
type PushOptions struct {
	Remote Remote
	// By is who pushes (who.Default).
	By who.Who
	// Clock times the retry waits and the status; nil: the real clock.
	Clock Clock
	// Poll is how often an idle pusher looks for entries other processes
	// queued (and for the push lock another one holds); 0: DefaultPoll;
	// negative: never (tests wake it with Enqueue).
	Poll time.Duration
	// MinBackoff and MaxBackoff bound the wait between tries while the
	// team store is unreachable: it doubles from Min up to Max.
	MinBackoff, MaxBackoff time.Duration
	// PushTimeout bounds one Remote call; 0: DefaultPushTimeout.
	PushTimeout time.Duration
	// Linger is how long the pusher lets entries gather after an Enqueue
	// woke it, before it pushes them: while P or W stores one delivery
	// after another, the pusher's fsyncs and transactions then cover many
	// entries instead of competing with every download for the disk.
	// Drain does not wait for it. 0: DefaultLinger; negative: none.
	Linger time.Duration
	// Warn gets a line for an entry that cannot be pushed because its
	// local file is gone or damaged (it is skipped); nil discards.
	Warn func(string)

	// afterPush runs between a push's success and its ledger line
	// (tests crash the pusher there).
	afterPush func()
	// afterRound runs after each round, before the pusher waits (tests
	// know the first round is over).
	afterRound func()
}

// Status is what the status bar and `b2bx store status` show.
type Status struct {
	// Waiting is how many queued entries the team store has not had.
	Waiting int `json:"waiting"`
	// Pushed counts what this pusher pushed; LastPush is the last one's time.
	Pushed   int       `json:"pushed"`
	LastPush time.Time `json:"lastPush,omitzero"`
	// Reachable: the last call to the team store succeeded. Known is
	// false until one answered.
	Reachable bool `json:"reachable"`
	Known     bool `json:"known"`
	// UnreachableSince is when the current unreachable spell began.
	UnreachableSince time.Time `json:"unreachableSince,omitzero"`
	// LastError is the last failure, redacted (never a password).
	LastError string `json:"lastError,omitempty"`
	// Elsewhere: another b2bx on this machine holds the push lock and
	// pushes this outbox.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// Dropped counts entries this process could not queue.
	Dropped int64 `json:"dropped,omitempty"`
}

// Pusher pushes an outbox's entries to the Remote in journal order, in
// the background.
type Pusher struct {
	o     *Outbox
	opts  PushOptions
	clock Clock

	cancel context.CancelFunc
	done   chan struct{}

	// run goroutine state
	release func()
	ledger  *os.File
	pushed  map[string]bool
	readOff int64
	queue   []queued
	stores  map[string]*spool.Store
	unsync  int

	mu      sync.Mutex
	st      Status
	cursor  int64 // the committed cursor (journal offset)
	atRead  int64 // o.queued when the journal was last read
	changed chan struct{}
	urgent  chan struct{} // Drain waits: no lingering
}

// Start starts the pusher of o until ctx ends or Stop.
func (o *Outbox) Start(ctx context.Context, opts PushOptions) *Pusher {
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Poll == 0 {
		opts.Poll = DefaultPoll
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.MinBackoff)
	}
	if opts.PushTimeout <= 0 {
		opts.PushTimeout = DefaultPushTimeout
	}
	if opts.Linger == 0 {
		opts.Linger = DefaultLinger
	}
	p := &Pusher{o: o, opts: opts, clock: opts.Clock, done: make(chan struct{}),
		stores: map[string]*spool.Store{}, changed: make(chan struct{}), urgent: make(chan struct{}, 1)}
	ctx, p.cancel = context.WithCancel(ctx)
	go p.run(ctx)
	return p
}

// Stop ends the pusher and waits for it (the entry being pushed is
// abandoned; it is pushed again next time, harmlessly).
func (p *Pusher) Stop() {
	p.cancel()
	<-p.done
}

// Done is closed when the pusher has stopped.
func (p *Pusher) Done() <-chan struct{} { return p.done }

// Status is the pusher's state now.
func (p *Pusher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.st
	if !st.Elsewhere {
		st.Waiting += int(p.o.queued.Load() - p.atRead)
	}
	st.Dropped = p.o.dropped.Load()
	return st
}

// Drain waits until everything queued when it was called is pushed, or
// ctx ends (the caller bounds it), and returns the status then. When
// another b2bx on this machine holds the push lock, it returns at once
// (Status.Elsewhere): that one pushes.
func (p *Pusher) Drain(ctx context.Context) Status {
	_ = p.o.Sync()
	var target int64
	if fi, err := os.Stat(p.o.journalPath()); err == nil {
		target = fi.Size()
	}
	p.kick()
	for {
		p.mu.Lock()
		ok, ch := p.cursor >= target || p.st.Elsewhere, p.changed
		p.mu.Unlock()
		if ok { // pushed, or another b2bx here pushes it
			return p.Status()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return p.Status()
		case <-p.done:
			return p.Status()
		}
	}
}

// kick wakes the run loop now (Drain: without lingering).
func (p *Pusher) kick() {
	select {
	case p.urgent <- struct{}{}:
	default:
	}
}

// update changes the status under the lock and wakes Drain.
func (p *Pusher) update(fn func(*Status)) {
	p.mu.Lock()
	fn(&p.st)
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *Pusher) run(ctx context.Context) {
	defer close(p.done)
	defer p.close()
	backoff := p.opts.MinBackoff
	p.ping(ctx)
	for {
		if ctx.Err() != nil {
			return
		}
		if p.unreachable() {
			select {
			case <-ctx.Done():
				return
			case <-p.clock.After(backoff):
			}
			backoff = min(2*backoff, p.opts.MaxBackoff)
			if !p.ping(ctx) {
				continue
			}
		}
		err := p.round(ctx)
		if p.opts.afterRound != nil {
			p.opts.afterRound()
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.failed(err)
			continue
		}
		backoff = p.opts.MinBackoff
		if !p.idle(ctx) {
			return
		}
	}
}

func (p *Pusher) unreachable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.Known && !p.st.Reachable
}

// ping asks the team store whether it is there; false when not.
func (p *Pusher) ping(ctx context.Context) bool {
	c, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := p.opts.Remote.Ping(c); err != nil {
		if ctx.Err() == nil {
			p.failed(err)
		}
		return false
	}
	p.reached()
	return true
}

func (p *Pusher) failed(err error) {
	now := p.clock.Now()
	p.update(func(s *Status) {
		if !s.Known || s.Reachable {
			s.UnreachableSince = now
		}
		s.Known, s.Reachable = true, false
		s.LastError = Redact(err.Error())
	})
}

func (p *Pusher) reached() {
	p.update(func(s *Status) {
		s.Known, s.Reachable = true, true
		s.UnreachableSince = time.Time{}
	})
}

// idle waits for an Enqueue of this process, the poll interval or the
// end; false at the end.
func (p *Pusher) idle(ctx context.Context) bool {
	var poll <-chan time.Time
	if p.opts.Poll > 0 {
		t := time.NewTimer(p.opts.Poll)
		defer t.Stop()
		poll = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case <-p.urgent:
		return true
	case <-p.o.wake:
	case <-poll:
	}
	if p.opts.Linger > 0 { // let what is being stored gather (real time: the disk's)
		t := time.NewTimer(p.opts.Linger)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-p.urgent:
		case <-t.C:
		}
	}
	return true
}

func (p *Pusher) close() {
	if p.ledger != nil {
		_ = p.ledger.Sync()
		_ = p.ledger.Close()
	}
	if p.release != nil {
		p.release()
	}
}

// round reads what was queued since the last round and pushes it in
// order. An error is the team store's: the entry stays at the head.
func (p *Pusher) round(ctx context.Context) error {
	if p.release == nil {
		ok, err := p.acquire()
		if err != nil {
			return err
		}
		if !ok {
			p.watchElsewhere()
			return nil
		}
	}
	_ = p.o.Sync() // the entries are durable before the cursor passes them
	atRead, size := p.o.mark()
	b, err := p.o.readRange(p.readOff, size)
	if err != nil {
		return err
	}
	es, n, _ := readEntries(b, p.readOff)
	p.readOff += n
	p.queue = append(p.queue, es...)
	p.mu.Lock()
	p.atRead = atRead
	p.st.Waiting = len(p.queue)
	p.mu.Unlock()
	defer p.syncLedger()
	for len(p.queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if b, ok := p.opts.Remote.(Batcher); ok && len(p.queue) > 1 {
			single, err := p.pushBatch(ctx, b)
			if err != nil {
				return err
			}
			// what the batch could not take, one by one: a bad entry is
			// skipped (and said) or held at the head on its own
			for ; single > 0 && len(p.queue) > 0; single-- {
				if err := p.pushHead(ctx); err != nil {
					return err
				}
			}
			continue
		}
		if err := p.pushHead(ctx); err != nil {
			return err
		}
	}
	if p.cursor < p.readOff { // undecodable lines at the end
		return p.commit("", p.readOff)
	}
	return nil
}

// pushHead pushes the entry at the head of the queue and records it.
func (p *Pusher) pushHead(ctx context.Context) error {
	q := p.queue[0]
	pushed, err := p.pushOne(ctx, q.e)
	if err != nil {
		return err
	}
	p.queue = p.queue[1:]
	return p.commit(pushed, q.end)
}

// acquire takes the push lock and loads the ledger; false when another
// process pushes.
func (p *Pusher) acquire() (bool, error) {
	release, ok, err := tryLock(filepath.Join(p.o.dir, lockName))
	if err != nil || !ok {
		return false, err
	}
	pushed, cursor, f, err := openLedger(p.o.ledgerPath())
	if err != nil {
		release()
		return false, err
	}
	p.release, p.ledger, p.pushed, p.readOff = release, f, pushed, cursor
	// the cursor moves with the update that wakes Drain (a cursor set
	// after it left a Drain that had just looked waiting for the next
	// change, which an outbox with nothing new never makes)
	queued, size := p.o.mark()
	p.update(func(s *Status) {
		s.Elsewhere = false
		p.cursor = cursor
		if size >= 0 && cursor >= size {
			// all that this process queued is in the journal before the
			// cursor: pushed (an Outbox outlives its pushers)
			p.atRead = queued
		}
	})
	return true, nil
}

// watchElsewhere counts what waits while another process pushes.
func (p *Pusher) watchElsewhere() {
	cursor := ledgerCursor(p.o.ledgerPath())
	b, _ := p.o.readFrom(cursor)
	waiting := bytes.Count(b, []byte{'\n'})
	p.update(func(s *Status) {
		p.cursor = cursor
		s.Elsewhere, s.Waiting = true, waiting
	})
}

// errSkip marks an entry whose local data is gone or damaged.
var errSkip = errors.New("skipped")

// pushOne pushes e unless the state it stands for was pushed; it
// returns the identity pushed ("" for none). A local problem skips the
// entry (Warn says why); a remote error is returned.
func (p *Pusher) pushOne(ctx context.Context, e Entry) (string, error) {
	id, push, err := p.prepare(e)
	if err != nil {
		if p.opts.Warn != nil {
			p.opts.Warn(sanitize("team store: not pushed: " + err.Error()))
		}
		return "", nil
	}
	if id == "" || p.pushed[id] {
		return "", nil
	}
	c, cancel := context.WithTimeout(ctx, p.opts.PushTimeout)
	defer cancel()
	if err := push(c); err != nil {
		if errors.Is(err, errSkip) {
			if p.opts.Warn != nil {
				p.opts.Warn(sanitize("team store: not pushed: " + err.Error()))
			}
			return "", nil
		}
		return "", err
	}
	p.reached()
	if p.opts.afterPush != nil {
		p.opts.afterPush()
	}
	return id, nil
}

// prepare resolves e against the local files: the identity of the
// state to push now and the push itself (which reads the bytes).
func (p *Pusher) prepare(e Entry) (string, func(context.Context) error, error) {
	r, by := p.opts.Remote, p.opts.By
	switch e.Kind {
	case KindDelivery:
		s, err := p.store(e.Root)
		if err != nil {
			return "", nil, err
		}
		st, err := s.Lookup(e.Conn, e.ID)
		if err != nil {
			return "", nil, fmt.Errorf("delivery %s of %s: %w", e.ID, e.Conn, err)
		}
		cur := DeliveryEntry(e.Root, st)
		return cur.identity(), func(ctx context.Context) error {
			b, err := os.ReadFile(st.Path)
			if err != nil {
				return fmt.Errorf("%w: delivery %s: %v", errSkip, e.ID, err)
			}
			if sum := sha256.Sum256(b); !strings.EqualFold(hex.EncodeToString(sum[:]), st.Meta.SHA256) || int64(len(b)) != st.Meta.Size {
				return fmt.Errorf("%w: delivery %s: the stored payload no longer matches its SHA-256 and size (%s): check the disk", errSkip, e.ID, st.Path)
			}
			if c, ok := r.(CheckedPusher); ok {
				return c.PushCheckedDelivery(ctx, e.Conn, *st, b, by)
			}
			return r.PushDelivery(ctx, e.Conn, *st, b, by)
		}, nil
	case KindUpload:
		if e.Upload == nil {
			return "", nil, errors.New("an upload entry without its record")
		}
		rec := *e.Upload
		return e.identity(), func(ctx context.Context) error {
			var file []byte
			if s, err := p.store(e.Root); err == nil && rec.SHA256 != "" {
				if path, err := s.SentPath(rec.ConnectionID, rec.SHA256); err == nil {
					file, _ = os.ReadFile(path) // nil: the sent copy is gone
				}
			}
			return r.PushUpload(ctx, rec.ConnectionID, rec, file, by)
		}, nil
	case KindSeen:
		if e.Seen == nil {
			return "", nil, errors.New("a seen entry without its record")
		}
		rec := *e.Seen
		return e.identity(), func(ctx context.Context) error { return r.PushSeen(ctx, rec.ConnectionID, rec, by) }, nil
	case KindCapture:
		return e.identity(), func(ctx context.Context) error {
			b, err := os.ReadFile(e.Path)
			if err != nil {
				return fmt.Errorf("%w: capture %s: %v", errSkip, e.Path, err)
			}
			return r.PushCapture(ctx, e.Path, b, by)
		}, nil
	}
	return "", nil, fmt.Errorf("an entry of unknown kind %q (written by a newer b2bx?)", e.Kind)
}

// store opens (once) the spool at root, without creating it.
func (p *Pusher) store(root string) (*spool.Store, error) {
	if s := p.stores[root]; s != nil {
		return s, nil
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		if err == nil {
			err = fs.ErrNotExist
		}
		return nil, fmt.Errorf("spool %s: %w", root, err)
	}
	s, err := spool.Open(root)
	if err != nil {
		return nil, err
	}
	p.stores[root] = s
	return s, nil
}
