package teamstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/fakeclock"
)

// The app's team store is down at start: this machine's data answers and
// the note says since when it is retried; the waits between attempts grow
// (1 s, 2 s); once an attempt opens it, the team's data answers and the
// note is gone. The attempts are the test's (an injected dial) and the
// waits a fake clock's.
func TestFacesRetryUntilTheStoreIsBack(t *testing.T) {
	s, dsn := newStore(t, alice)
	alicesRejectedUpload(t, s)
	getenv := facesEnv(t, dsn)
	env := session.Env{Getenv: getenv}
	f := NewFaces(getenv, nil)
	require.NotNil(t, f)
	defer f.Close()
	clk := fakeclock.New(time.Date(2026, 12, 2, 9, 10, 0, 0, time.Local))
	f.now, f.after = clk.Now, clk.After
	type answer struct {
		s   *Store
		err error
	}
	answers := make(chan answer)
	f.dial = func(ctx context.Context) (*Store, error) {
		select {
		case a := <-answers:
			return a.s, a.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	refused := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	bobStore, err := spool.Open(getenv(spool.EnvDataDir))
	require.NoError(t, err)

	f.Start(t.Context())
	answers <- answer{err: refused}
	require.Nil(t, f.Index(t.Context()), "down at start: this machine's data answers")
	require.Contains(t, f.Note(), "connection refused")
	require.Contains(t, f.Note(), "unreachable since 09:10, retrying")
	l, err := f.Loader(env)(t.Context(), bobStore, "conn-a")
	require.NoError(t, err)
	require.Empty(t, l.Uploads, "this machine has none")

	answers <- answer{err: refused} // the second attempt, after 1 s
	require.Contains(t, f.Note(), "unreachable since 09:10, retrying", "since the first failure")
	answers <- answer{s: open(t, dsn, bob)} // the third, after 2 s: back
	select {
	case <-f.done:
	case <-time.After(time.Minute):
		t.Fatal("the open did not end after the store answered")
	}
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second}, clk.Waits())
	require.NotNil(t, f.Index(t.Context()), "the team's data once it is back")
	require.Empty(t, f.Note())
	l, err = f.Loader(env)(t.Context(), bobStore, "conn-a")
	require.NoError(t, err)
	require.NotEmpty(t, l.Uploads, "Alice's upload, from the team store")
}

// Close ends an opening that is still retrying (its attempt cancelled),
// and a config.toml that cannot be read is not retried.
func TestFacesCloseEndsTheRetries(t *testing.T) {
	f := NewFaces(facesEnv(t, "postgres://bob@127.0.0.1:1/none?sslmode=disable"), nil)
	clk := fakeclock.New(time.Time{})
	f.now, f.after = clk.Now, clk.After
	tried := make(chan struct{}, 1)
	f.dial = func(ctx context.Context) (*Store, error) {
		select {
		case tried <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	f.Start(t.Context())
	<-tried
	f.Close() // cancels the attempt waiting in dial, and returns
	require.Nil(t, f.Index(t.Context()))

	g := NewFaces(facesEnv(t, "postgres://bob@127.0.0.1:1/none?sslmode=disable"), nil)
	g.now, g.after = clk.Now, clk.After
	n := 0
	g.dial = func(context.Context) (*Store, error) {
		n++
		return nil, settingsError{errors.New("config.toml: line 3: bad")}
	}
	g.Start(t.Context())
	<-g.done
	require.Equal(t, 1, n, "not retried")
	require.Contains(t, g.Note(), "line 3")
	require.NotContains(t, g.Note(), "retrying")
	g.Close()
}
