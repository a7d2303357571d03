package events

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Key source limits.
const (
	// KeyFetchTimeout bounds one fetch of a JWKS URL.
	KeyFetchTimeout = 5 * time.Second
	// KeyCacheTTL is how long a fetched JWKS is used before it is
	// fetched again (in the background: deliveries never wait for it).
	KeyCacheTTL = 5 * time.Minute
	// keyFileCheck is how often a JWKS file's modification is looked at.
	keyFileCheck = time.Second
	maxJWKSBytes = 1 << 20
)

// KeySource is one sender's JWKS, from a file (reloaded when it
// changes) or a URL (fetched with a bounded timeout, cached for
// KeyCacheTTL, refetched in the background). A reload or fetch that
// fails keeps the last good set; Err says why.
type KeySource struct {
	spec   string
	isURL  bool
	client *http.Client
	now    func() time.Time

	mu       sync.Mutex
	set      *JWKS
	checked  time.Time // a file: last stat; a URL: last fetch
	mtime    time.Time
	size     int64
	fetching bool
	err      error
}

// NewKeySource reads the JWKS at spec (a file, or an https URL; http
// only on a loopback address) once: a source that cannot be read at
// the start is an error. client nil: one with KeyFetchTimeout.
func NewKeySource(spec string, client *http.Client) (*KeySource, error) {
	ks := &KeySource{spec: spec, client: client, now: time.Now}
	if strings.HasPrefix(spec, "https://") || strings.HasPrefix(spec, "http://") {
		u, err := url.Parse(spec)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("JWKS URL %q: not a URL", clip(spec, 80))
		}
		if u.User != nil {
			return nil, fmt.Errorf("JWKS URL: credentials in the URL are not accepted; the key set is public")
		}
		if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("JWKS URL %s: plain http only on a loopback address; use https", clip(u.Redacted(), 80))
		}
		ks.isURL = true
		if ks.client == nil {
			ks.client = &http.Client{Timeout: KeyFetchTimeout}
		}
	}
	var err error
	if ks.isURL {
		ks.set, err = ks.fetch()
		ks.checked = ks.now()
	} else {
		err = ks.reloadFile(true)
	}
	if err != nil {
		return nil, err
	}
	return ks, nil
}

func isLoopbackHost(h string) bool {
	ip := net.ParseIP(h)
	return h == "localhost" || ip != nil && ip.IsLoopback()
}

// Spec is the file or URL the set comes from.
func (ks *KeySource) Spec() string { return ks.spec }

// Err is why the last reload or fetch failed (nil: it did not).
func (ks *KeySource) Err() error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.err
}

// JWKS returns the current key set, reloading a changed file first and
// starting a background fetch of a URL whose cache has expired.
func (ks *KeySource) JWKS() *JWKS {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := ks.now()
	switch {
	case ks.isURL && now.Sub(ks.checked) >= KeyCacheTTL && !ks.fetching:
		ks.fetching = true
		go func() {
			set, err := ks.fetch()
			ks.mu.Lock()
			defer ks.mu.Unlock()
			ks.fetching, ks.checked, ks.err = false, ks.now(), err
			if err == nil {
				ks.set = set
			}
		}()
	case !ks.isURL && now.Sub(ks.checked) >= keyFileCheck:
		ks.err = ks.reloadFile(false)
	}
	return ks.set
}

// reloadFile reads the file when its size or time changed (always when
// force); the caller holds mu (or owns ks).
func (ks *KeySource) reloadFile(force bool) error {
	ks.checked = ks.now()
	fi, err := os.Stat(ks.spec)
	if err != nil {
		return fmt.Errorf("JWKS file: %w", err)
	}
	if !force && fi.ModTime().Equal(ks.mtime) && fi.Size() == ks.size {
		return nil
	}
	if fi.Size() > maxJWKSBytes {
		return fmt.Errorf("JWKS file %s: %d bytes, more than %d", ks.spec, fi.Size(), maxJWKSBytes)
	}
	raw, err := os.ReadFile(ks.spec)
	if err != nil {
		return fmt.Errorf("JWKS file: %w", err)
	}
	set, err := ParseJWKS(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", ks.spec, err)
	}
	ks.set, ks.mtime, ks.size = set, fi.ModTime(), fi.Size()
	return nil
}

func (ks *KeySource) fetch() (*JWKS, error) {
	ctx, cancel := context.WithTimeout(context.Background(), KeyFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ks.spec, nil)
	if err != nil {
		return nil, fmt.Errorf("JWKS URL: %w", err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := ks.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("JWKS URL: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("JWKS URL: HTTP %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("JWKS URL: %w", err)
	}
	if len(raw) > maxJWKSBytes {
		return nil, fmt.Errorf("JWKS URL: more than %d bytes", maxJWKSBytes)
	}
	return ParseJWKS(raw)
}

// KeySets are the JWKS a receiver verifies envelope.signature with: one
// per sender GLN, and a default for the others (nil: none).
type KeySets struct {
	Default  *KeySource
	BySender map[string]*KeySource
}

// ErrKeySpec matches an unusable --jwks value.
var ErrKeySpec = errors.New("JWKS")

// AddSpec adds one "FILE|URL" (the default) or "GLN=FILE|URL" (that
// sender's) source.
func (k *KeySets) AddSpec(spec string, client *http.Client) error {
	gln, src, found := strings.Cut(spec, "=")
	if !found || strings.Contains(gln, "/") || strings.Contains(gln, ":") {
		gln, src = "", spec
	}
	if gln != "" && !ValidGLN(gln) {
		return fmt.Errorf("%w: %q before = is not a GLN (13 digits with a valid check digit): give GLN=FILE or GLN=URL", ErrKeySpec, clip(gln, 20))
	}
	ks, err := NewKeySource(src, client)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeySpec, err)
	}
	switch {
	case gln == "" && k.Default != nil:
		return fmt.Errorf("%w: two key sets without a sender GLN; give the others as GLN=FILE", ErrKeySpec)
	case gln == "":
		k.Default = ks
	default:
		if k.BySender == nil {
			k.BySender = map[string]*KeySource{}
		}
		if k.BySender[gln] != nil {
			return fmt.Errorf("%w: two key sets for sender %s", ErrKeySpec, gln)
		}
		k.BySender[gln] = ks
	}
	return nil
}

// For returns the key set of a sender's events (nil: none); the
// ReceiverOptions.KeySets of a receiver that requires signed events.
func (k *KeySets) For(sender string) *JWKS {
	if ks := k.BySender[sender]; ks != nil {
		return ks.JWKS()
	}
	if k.Default != nil {
		return k.Default.JWKS()
	}
	return nil
}

// Empty reports whether no key set was given.
func (k *KeySets) Empty() bool { return k.Default == nil && len(k.BySender) == 0 }
