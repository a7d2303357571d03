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

// CorrelationIDFrom returns the correlation ID a caller put on ctx with
// WithCorrelationID, and whether it is one the client will send (an
// invalid one is replaced by a fresh ID per call, so it reports false).
func CorrelationIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(correlationKey{}).(string)
	if !ok || !validCorrelationID(id) {
		return "", false
	}
	return id, true
}

// correlationFor returns the ID on ctx if it is valid, else a fresh one.
func correlationFor(ctx context.Context) string {
	if id, ok := CorrelationIDFrom(ctx); ok {
		return id
	}
	return NewCorrelationID()
}

func validCorrelationID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
