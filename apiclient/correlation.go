package apiclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type correlationKey struct{}

// NewCorrelationID returns a random 128-bit ID in hex.
func NewCorrelationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WithCorrelationID makes the next operations on ctx use id (1..64
// characters of [A-Za-z0-9._-]; otherwise a fresh ID is generated), so a
// worker can tie its steps together.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}
