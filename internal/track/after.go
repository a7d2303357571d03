package track

import (
	"context"
	"os"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// AfterTimeout bounds one IndexAfter: the update is derived data, so a
// slow disk never holds a command or a tab for longer.
const AfterTimeout = 30 * time.Second

// IndexAfter brings the machine's index up to date for one connection
// after something was stored, uploaded or answered: stored deliveries
// given are indexed on their own (IndexStored: milliseconds however large
// the store); with none, the connection's upload history, the files sent
// and the seen journal are read again (IndexHistory). It is the one update
// both faces run, after their own work, off the download path: the CLI
// after a command's output, the app in a background command once the tab
// is idle.
//
// A pending whole rebuild is left to the next Sync (b2bx find, the app's
// find, the start screen), which says it. An error is for a warning only:
// a failed write has marked the index stale, and the files are untouched.
func IndexAfter(ctx context.Context, env session.Env, root, connectionID string, stored ...spool.Stored) error {
	inflight.Add(1)
	defer inflight.Done()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AfterTimeout)
	defer cancel()
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	m, err := LoadMachine(session.Env{Getenv: getenv})
	if err != nil {
		return err
	}
	x, err := m.Open(ctx, nil)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.NeedsRebuild() != "" {
		return nil // a whole rebuild is find's (or b2bx index's) to do and say
	}
	if len(stored) > 0 {
		return x.IndexStored(ctx, root, stored...)
	}
	return x.IndexHistory(ctx, root, connectionID)
}
