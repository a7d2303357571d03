// Package spool is b2bx's durable local store: verified mailbox payloads
// with their metadata sidecars, and the upload history that numbers
// idempotency keys, one directory per connection.
//
// Layout under the root (owner-only: directories 0700, files 0600):
//
//	<root>/<connection>/deliveries/<name>.edi    the verified payload bytes
//	<root>/<connection>/deliveries/<name>.json   its metadata sidecar
//	<root>/<connection>/deliveries/.tmp-*        staged writes (crash leftovers are cleaned)
//	<root>/<connection>/uploads.jsonl            the upload history, one JSON record a line
//	<root>/<connection>/.lock                    flock serialising commits and key reservations
//
// Connection and delivery IDs come from the server and are untrusted: they
// become file names only when they match a strict pattern, otherwise a
// hash-derived name is used (see [SafeName]); the sidecar keeps the real ID
// and every lookup checks it.
//
// "Durable" follows the contract: write a temporary file, fsync it, rename
// it into place, fsync the directory. The claim token never reaches this
// package, so it can never be written to disk.
package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Permissions of everything the spool creates.
const (
	dirPerm  = 0o700
	filePerm = 0o600
)

// EnvDataDir overrides the spool root (below a profile's store directory).
const EnvDataDir = "B2BX_DATA_DIR"

// staleTemp is how long a staged temp file must have been left untouched
// before it counts as a crash leftover. A live download writes (and so
// touches the file) continuously; an hour without a write means its writer
// is gone. Age-based cleaning needs no cross-process coordination with a
// concurrent b2bx that may be streaming into its own temp file right now.
const staleTemp = time.Hour

// Errors callers tell apart with errors.Is.
var (
	// ErrConflict: the delivery is already stored with different bytes.
	ErrConflict = errors.New("spool: conflict")
	// ErrNotFound: no stored delivery with that ID.
	ErrNotFound = errors.New("spool: not found")
)

// Store is a spool rooted at one directory. It is safe for concurrent use
// by goroutines and by several b2bx processes.
type Store struct {
	root string
	now  func() time.Time

	mu      sync.Mutex
	cleaned map[string]bool          // connection dirs whose stale temps were swept
	hist    map[string]parsedHistory // the last parse of each upload history (Uploads)

	shared func(connectionID string) ([]UploadRecord, error) // the team's upload lines (SetSharedUploads)

	onWrite atomic.Pointer[func(Written)] // SetOnWrite
}

// DefaultRoot returns the spool root from the environment: $B2BX_DATA_DIR,
// else $XDG_DATA_HOME/b2bx (only when absolute, as the XDG spec requires),
// else ~/.local/share/b2bx. getenv is os.Getenv outside tests.
func DefaultRoot(getenv func(string) string) (string, error) {
	if d := getenv(EnvDataDir); d != "" {
		return filepath.Clean(d), nil
	}
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "b2bx"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("spool: no data directory: set $%s or $XDG_DATA_HOME: %w", EnvDataDir, err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "share", "b2bx"), nil
}

// Open returns the store rooted at root, creating the directory (0700) if
// needed.
func Open(root string) (*Store, error) {
	if root == "" {
		return nil, errors.New("spool: empty root directory")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("spool: root %q: %w", root, err)
	}
	if err := os.MkdirAll(abs, dirPerm); err != nil {
		return nil, fmt.Errorf("spool: create root: %w (check permissions or choose another directory with $%s)", err, EnvDataDir)
	}
	return &Store{root: abs, now: time.Now, cleaned: map[string]bool{}}, nil
}

// Root is the absolute root directory.
func (s *Store) Root() string { return s.root }

// SetClock replaces the clock used for receivedAt and history times
// (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// connDir is the connection's directory (not created).
func (s *Store) connDir(connectionID string) string {
	return filepath.Join(s.root, SafeName(connectionID))
}

// deliveriesDir creates (once) and returns the connection's deliveries
// directory, sweeping stale temp files on first use.
func (s *Store) deliveriesDir(connectionID string) (string, error) {
	if connectionID == "" {
		return "", errors.New("spool: empty connection ID")
	}
	dir := filepath.Join(s.connDir(connectionID), "deliveries")
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return "", fmt.Errorf("spool: create %s: %w", dir, err)
	}
	s.mu.Lock()
	first := !s.cleaned[dir]
	s.cleaned[dir] = true
	s.mu.Unlock()
	if first {
		s.sweepTemps(dir)
	}
	return dir, nil
}

// sweepTemps removes staged files nobody has written to for staleTemp.
// Errors are ignored: a leftover temp is harmless, it is never read.
func (s *Store) sweepTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !isTempName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || s.now().Sub(info.ModTime()) < staleTemp {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// SafeName maps an untrusted server ID to a file name. IDs of 1 to 128
// characters from [A-Za-z0-9._-] that do not start with '.' or '-' are
// used as they are; anything else (empty, too long, '/', '..', control or
// non-ASCII characters, a leading dot that could hide the file or mimic a
// temp file) becomes "~" plus the first 40 hex digits of its SHA-256. '~'
// is outside the strict set, so a hashed name never equals a plain one.
func SafeName(id string) string {
	if isPlainName(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "~" + hex.EncodeToString(sum[:20])
}

func isPlainName(id string) bool {
	if len(id) == 0 || len(id) > 128 || id[0] == '.' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
