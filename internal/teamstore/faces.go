package teamstore

import (
	"context"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
)

// Faces is the team's data for a long-running face (the app): the team
// store is opened in the background (Start), each attempt within
// ConnectTimeout, and again with a growing wait while it cannot be
// (faces_open.go); its index answers find, the timeline, the dashboard
// and H, its upload history counts in key plans. Until it is open, or
// while it cannot be used, this machine's data answers (Note says why,
// one line). The zero of every method is "no team": a nil *Faces is
// valid.
type Faces struct {
	getenv  func(string) string
	secrets func() (credentials.SecretStore, error)
	// dial opens the store (openConfigured; tests inject theirs); now
	// and after time the waits between attempts (nil: the real clock;
	// tests: internal/fakeclock's).
	dial  func(ctx context.Context) (*Store, error)
	now   func() time.Time
	after func(time.Duration) <-chan time.Time

	once   sync.Once
	ready  chan struct{} // closed once the first attempt has ended
	done   chan struct{} // closed once the opening goroutine has ended
	cancel context.CancelFunc
	mu     sync.Mutex
	s      *Store
	x      *track.Index
	note   string
	holds  map[string]*time.Timer // the key-plan locks held (AttachKeyPlans), released by their timer
}

// NewFaces is the configured team store for the app, or nil when none is
// configured ([store] url unset; config.toml's own problems are said
// where it is read for them). Start opens it.
func NewFaces(getenv func(string) string, secrets func() (credentials.SecretStore, error)) *Faces {
	st, err := Settings(getenv)
	if err != nil || !st.Configured() {
		return nil
	}
	f := &Faces{getenv: getenv, secrets: secrets, ready: make(chan struct{}), done: make(chan struct{})}
	f.dial = f.openConfigured
	return f
}

// Index is the team's index once the store is open: it waits for the
// first attempt Start began (ConnectTimeout at most, or until ctx ends);
// nil while the store cannot be used (a later attempt that opens it
// makes it the team's) or when there is none (this machine's answers).
// The caller does not close it.
func (f *Faces) Index(ctx context.Context) *track.Index {
	if f == nil {
		return nil
	}
	f.Start(ctx)
	select {
	case <-f.ready:
	case <-ctx.Done():
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.x
}

// Note is the one line to say when the team store is configured but not
// used (it cannot be reached, a login is missing); "" otherwise or while
// it is still being opened.
func (f *Faces) Note() string {
	if f == nil {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.note
}

// store is the open Store, nil until then (never waits).
func (f *Faces) store() *Store {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.s
}

// Loader is track.Loader reading the team's index when it is open (H: a
// tab's uploads with the answers anyone on the team fetched), this
// machine's otherwise.
func (f *Faces) Loader(env session.Env) orders.Loader {
	local := track.Loader(env)
	if f == nil {
		return local
	}
	return func(ctx context.Context, store *spool.Store, conn string) (*orders.Linked, error) {
		if x := f.Index(ctx); x != nil {
			if l, err := f.teamLinked(ctx, x, store, conn); err == nil {
				return l, nil
			}
		}
		return local(ctx, store, conn)
	}
}

// teamLinked links this machine's upload history merged with the team's
// to the answers in the team's index.
func (f *Faces) teamLinked(ctx context.Context, x *track.Index, store *spool.Store, conn string) (*orders.Linked, error) {
	hist, err := store.Uploads(conn)
	if err != nil {
		return nil, err
	}
	if s := f.store(); s != nil {
		team, err := s.Uploads(ctx, conn)
		if err != nil {
			return nil, err
		}
		hist = spool.MergeHistories(hist, team)
	}
	return x.LinkedWith(ctx, hist, conn)
}

// SelectLoader is track.SelectLoader reading the team's index when it is
// open: the upload guard and the fix flow see the uploads anyone sent
// with these bytes and the answers that rejected them.
func (f *Faces) SelectLoader(env session.Env) orders.SelectLoader {
	local := track.SelectLoader(env)
	if f == nil {
		return local
	}
	return func(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (*orders.Linked, error) {
		if x := f.Index(ctx); x != nil {
			if l, err := x.LinkedFor(ctx, store, conn, &sel); err == nil {
				return l, nil
			}
		}
		return local(ctx, store, conn, sel)
	}
}

// SentBy is Store.SentBy once the team store is open (H says who sent
// the team's uploads); nil before, when it cannot be read, and without
// one.
func (f *Faces) SentBy(ctx context.Context, conn string) map[string]string {
	s := f.store()
	if s == nil {
		return nil
	}
	by, err := s.SentBy(ctx, conn)
	if err != nil {
		return nil
	}
	return by
}

// Delivery is Store.Colleague once the team store is open: a bundle (T)
// of a delivery only a colleague fetched; ok false before and without
// one.
func (f *Faces) Delivery(ctx context.Context, conn, id string) (spool.Meta, []byte, string, bool, error) {
	s := f.store()
	if s == nil {
		return spool.Meta{}, nil, "", false, nil
	}
	return s.Colleague(ctx, conn, id)
}

// DeliveryAt is Store.DeliveryAt once the team store is open: the viewer
// on a timeline step of a delivery only a colleague fetched (its path is
// the team index's); ok false before, without one, or when the team has
// none there.
func (f *Faces) DeliveryAt(ctx context.Context, path string) (spool.Meta, []byte, string, bool, error) {
	s := f.store()
	if s == nil {
		return spool.Meta{}, nil, "", false, nil
	}
	return found(s.DeliveryAt(ctx, path))
}

// Timeline is a bundle's timeline source (T) over the team's index when
// it is open (each step by who did it), this machine's otherwise.
func (f *Faces) Timeline(env session.Env) func(ctx context.Context, conn, id string) ([]string, error) {
	local := track.MachineTimeline(env, nil)
	if f == nil {
		return local
	}
	return func(ctx context.Context, conn, id string) ([]string, error) {
		x := f.Index(ctx)
		if x == nil {
			return local(ctx, conn, id)
		}
		m, err := track.LoadMachine(session.Env{Getenv: env.Getenv})
		if err != nil {
			return nil, err
		}
		return track.IndexTimeline(x, m.SLA())(ctx, conn, id)
	}
}

// AttachKeyPlans makes store's key plans count the team's uploads once
// the team store is open, as ForKeyPlans does for `b2bx upload` (the
// same function): read under the team's key-plan lock of the connection,
// which UploadPushed releases once the key reserved is in the team store
// (cmd/b2bx wires it to the outbox's Remote, OnUploadPushed), or, when no
// upload follows the plan, keyLockWait after the last read (a
// reservation reads again under the lock, so a plan left open never
// hands out a key a colleague took meanwhile). Before the open, and when
// the store cannot be used, this machine's uploads count. It never waits
// for the open.
func (f *Faces) AttachKeyPlans(ctx context.Context, store *spool.Store) {
	if f == nil || store == nil {
		return
	}
	shareKeyPlans(ctx, store, f.store, f.held)
}

// held arms the release of conn's key-plan lock keyLockWait after its
// last read.
func (f *Faces) held(s *Store, conn string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.holds == nil {
		f.holds = map[string]*time.Timer{}
	}
	if tm := f.holds[conn]; tm != nil {
		tm.Stop()
	}
	f.holds[conn] = time.AfterFunc(keyLockWait, func() { s.releaseKey(conn) })
}

// UploadPushed releases the team's key-plan lock of conn held by this
// app's key plans (if any): an upload record of conn is committed in the
// team store, so a colleague's plan now counts it.
func (f *Faces) UploadPushed(conn string) {
	s := f.store()
	if s == nil {
		return
	}
	f.mu.Lock()
	if tm := f.holds[conn]; tm != nil {
		tm.Stop()
		delete(f.holds, conn)
	}
	f.mu.Unlock()
	s.releaseKey(conn)
}

// Close ends the opening (an attempt running is cancelled) and releases
// the index and the store.
func (f *Faces) Close() {
	if f == nil {
		return
	}
	f.once.Do(func() { close(f.ready); close(f.done) }) // never started: nothing to wait for
	f.mu.Lock()
	if f.cancel != nil {
		f.cancel()
	}
	f.mu.Unlock()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, tm := range f.holds {
		tm.Stop()
	}
	f.holds = nil
	if f.x != nil {
		f.x.Close()
	}
	if f.s != nil {
		f.s.Close()
	}
	f.s, f.x = nil, nil
}
