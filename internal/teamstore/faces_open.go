package teamstore

import (
	"context"
	"errors"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// The waits between the app's attempts to open the team store while it
// cannot be: from openRetryMin, doubling, at most openRetryMax (the
// outbox's pusher retries the same way).
const (
	openRetryMin = time.Second
	openRetryMax = 5 * time.Minute
)

// settingsError is a config.toml that cannot be read: trying again does
// not help until it is fixed (and the app reads it at start).
type settingsError struct{ err error }

func (e settingsError) Error() string { return e.err.Error() }
func (e settingsError) Unwrap() error { return e.err }

// Start opens the team store on its own goroutine (never the caller's):
// each attempt bounded by ConnectTimeout, and while the store cannot be
// opened, again after a growing wait (1 s, 2 s, 4 s … at most 5 min),
// until it opens, ctx ends or Close. Once it opens, the team's data
// answers (Index, the loaders). Calling it again does nothing.
func (f *Faces) Start(ctx context.Context) {
	if f == nil {
		return
	}
	f.once.Do(func() {
		ctx, cancel := context.WithCancel(ctx)
		f.mu.Lock()
		f.cancel = cancel
		f.mu.Unlock()
		go f.open(ctx)
	})
}

// open tries until the store is open; the first attempt's end closes
// ready (Index waits for it, no longer).
func (f *Faces) open(ctx context.Context) {
	defer close(f.done)
	first := true
	endFirst := func() {
		if first {
			first = false
			close(f.ready)
		}
	}
	defer endFirst()
	now, after := f.now, f.after
	if now == nil {
		now, after = time.Now, time.After
	}
	var since time.Time
	for wait := openRetryMin; ; wait = min(2*wait, openRetryMax) {
		err := f.attempt(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		if errors.As(err, new(settingsError)) {
			f.setNote(err, time.Time{})
			return
		}
		if since.IsZero() {
			since = now()
		}
		f.setNote(err, since)
		endFirst()
		select {
		case <-ctx.Done():
			return
		case <-after(wait):
		}
	}
}

// attempt opens the store and its index once, within ConnectTimeout.
func (f *Faces) attempt(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	s, err := f.dial(actx)
	if err != nil {
		return err
	}
	x, err := s.Index(context.WithoutCancel(actx))
	if err != nil {
		s.Close()
		return err
	}
	f.mu.Lock()
	f.s, f.x, f.note = s, x, ""
	f.mu.Unlock()
	return nil
}

// openConfigured is the default dial: config.toml's [store], the
// password from the keyring, PGPASSWORD or .pgpass.
func (f *Faces) openConfigured(ctx context.Context) (*Store, error) {
	st, err := Settings(f.getenv)
	if err != nil {
		return nil, settingsError{err}
	}
	var ks credentials.SecretStore
	if f.secrets != nil {
		ks, _ = f.secrets() // no keyring: PGPASSWORD or .pgpass
	}
	return Open(ctx, ConfigFrom(st, ks))
}

// setNote says why the team's data is not used, and since when the store
// is retried (zero: it is not).
func (f *Faces) setNote(err error, since time.Time) {
	note := "team store not used (" + termsafe.String(err.Error()) + "): this machine's index answers"
	if !since.IsZero() {
		note += "; unreachable since " + since.Local().Format("15:04") + ", retrying"
	}
	f.mu.Lock()
	f.note = note
	f.mu.Unlock()
}
