package eventview

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// loadedMsg is the result of reading and checking a path.
type loadedMsg struct {
	req    uint64
	path   string
	parent string // the directory the picker opens next (o): path's, or path itself
	rep    events.Report
	err    error
}

// secretMsg is the webhook secret read from the keyring. Its error text
// never holds the secret.
type secretMsg struct {
	req uint64
	v   secret.Value
	err error
}

// keyringTimeout bounds the keyring read beyond the store's own timeout
// (an unlock prompt may take a person a while).
const keyringTimeout = time.Minute

// inspect reads path (a file or a directory of captures) and runs the
// checks with the screen's secrets. The receiver's clock for signature
// timestamps is each capture's Date header, as in `b2bx event inspect`
// without --now: a capture is read long after it arrived.
func inspect(req uint64, path string, secrets []events.Secret) tea.Cmd {
	return func() tea.Msg {
		msg := loadedMsg{req: req, path: path, parent: parentDir(path)}
		ds, err := events.ReadPath(path)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.rep = events.Inspect(ds, events.Options{Secrets: secrets})
		return msg
	}
}

// parentDir is the absolute directory to pick the next capture in: path
// when it is a directory, else the directory holding it; "" when there is
// none.
func parentDir(path string) string {
	dir := path
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// readSecret reads the profile's webhook secret from the store.
func readSecret(ctx context.Context, req uint64, store credentials.SecretStore, profile string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, keyringTimeout)
		defer cancel()
		v, err := store.Get(ctx, profile, credentials.WebhookKeyID)
		if err == nil && v.IsZero() {
			err = credentials.ErrNotFound
		}
		return secretMsg{req: req, v: v, err: err}
	}
}

// secretProblem says what to do when the keyring read failed; it names
// the profile and the account, never a secret.
func secretProblem(profile string, err error) string {
	p := termsafe.String(profile)
	if errors.Is(err, credentials.ErrNotFound) {
		return fmt.Sprintf("no webhook secret stored for profile %s (keyring %s / %s): store it with 'b2bx event set-secret -c %s', or press s to type it",
			p, credentials.Service, termsafe.String(credentials.Account(profile, credentials.WebhookKeyID)), p)
	}
	return "reading the webhook secret of profile " + p + " failed: " + termsafe.String(err.Error())
}
