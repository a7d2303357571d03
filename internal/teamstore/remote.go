package teamstore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/internal/who"
)

// Remote is the team store as the outbox's pusher uses it
// (outbox.Remote): it connects on first use and again after a failed
// open, so a command queues what it stores even while the database is
// down, and pushes once it answers. An open Store keeps its pool
// (database/sql reconnects it).
type Remote struct {
	cfg Config
	mu  sync.Mutex
	s   *Store

	pushed atomic.Pointer[func(conn string)] // OnUploadPushed
}

// OnUploadPushed makes fn run after an upload record of conn is committed
// in the team store (after its transaction, or its batch's, committed):
// the app's key plans let go of the team's key-plan lock of conn then
// (Faces.UploadPushed). nil removes it.
func (r *Remote) OnUploadPushed(fn func(conn string)) {
	if fn == nil {
		r.pushed.Store(nil)
		return
	}
	r.pushed.Store(&fn)
}

// pushedKey is the context key of the connections a Batch pushed uploads of.
type pushedKey struct{}

// uploadPushed tells OnUploadPushed's fn about conn: now, or, inside a
// Batch, once it committed.
func (r *Remote) uploadPushed(ctx context.Context, conn string) {
	if conns, ok := ctx.Value(pushedKey{}).(*[]string); ok {
		*conns = append(*conns, conn)
		return
	}
	if fn := r.pushed.Load(); fn != nil {
		(*fn)(conn)
	}
}

// NewRemote is the Remote of cfg; nothing is connected yet. From now on
// this process's local index shares its parse of a big payload with the
// push of the same bytes (track.SharePayloadParses).
func NewRemote(cfg Config) *Remote {
	track.SharePayloadParses(true)
	return &Remote{cfg: cfg}
}

// ConfiguredRemote is the Remote of config.toml's [store] and who its
// pushes are by; nil, with a nil error, when no team store is configured.
// secrets is asked for the keyring only when one is.
func ConfiguredRemote(getenv func(string) string, secrets func() (credentials.SecretStore, error)) (*Remote, who.Who, error) {
	st, err := Settings(getenv)
	if err != nil {
		return nil, who.Who{}, err
	}
	if !st.Configured() {
		return nil, who.Who{}, nil
	}
	if _, err := Parse(st.URL); err != nil { // a bad URL is said now, not on every retry
		return nil, who.Who{}, err
	}
	var sec credentials.SecretStore
	if secrets != nil {
		sec, _ = secrets() // no keyring: PGPASSWORD or ~/.pgpass, as psql
	}
	cfg := ConfigFrom(st, sec)
	return NewRemote(cfg), cfg.By.Clean(), nil
}

// store is the open Store, opening it first (within ConnectTimeout).
func (r *Remote) store(ctx context.Context) (*Store, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s != nil {
		return r.s, nil
	}
	s, err := Open(ctx, r.cfg)
	if err != nil {
		return nil, err
	}
	r.s = s
	return s, nil
}

// Ping implements outbox.Remote.
func (r *Remote) Ping(ctx context.Context) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	return s.Ping(ctx)
}

// PushCheckedDelivery implements outbox.CheckedPusher.
func (r *Remote) PushCheckedDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	return s.PushCheckedDelivery(ctx, conn, st, payload, by)
}

// PushDelivery implements outbox.Remote.
func (r *Remote) PushDelivery(ctx context.Context, conn string, st spool.Stored, payload []byte, by who.Who) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	return s.PushDelivery(ctx, conn, st, payload, by)
}

// PushUpload implements outbox.Remote.
func (r *Remote) PushUpload(ctx context.Context, conn string, rec spool.UploadRecord, file []byte, by who.Who) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	if err := s.PushUpload(ctx, conn, rec, file, by); err != nil {
		return err
	}
	r.uploadPushed(ctx, conn)
	return nil
}

// PushSeen implements outbox.Remote.
func (r *Remote) PushSeen(ctx context.Context, conn string, rec spool.SeenRecord, by who.Who) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	return s.PushSeen(ctx, conn, rec, by)
}

// PushCapture implements outbox.Remote.
func (r *Remote) PushCapture(ctx context.Context, name string, capture []byte, by who.Who) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	return s.PushCapture(ctx, name, capture, by)
}

// Batch implements the outbox's Batcher: the pushes fn makes share one
// transaction (Store.Batch).
func (r *Remote) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	s, err := r.store(ctx)
	if err != nil {
		return err
	}
	var conns []string
	if err := s.Batch(ctx, func(ctx context.Context) error { return fn(context.WithValue(ctx, pushedKey{}, &conns)) }); err != nil {
		return err
	}
	for _, c := range conns {
		r.uploadPushed(ctx, c)
	}
	return nil
}

// Close closes the connections, if any were opened.
func (r *Remote) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s != nil {
		_ = r.s.Close()
		r.s = nil
	}
}
