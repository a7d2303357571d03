package apiclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateIdempotencyKey(t *testing.T) {
	tests := []struct {
		key  string
		want string // "" = valid
	}{
		{"4012345000009:PO-4711:orders:1", ""},
		{"a", ""},
		{"A-Z_a.z:0-9", ""},
		{strings.Repeat("k", 200), ""},
		{"", "empty"},
		{strings.Repeat("k", 201), "201 characters"},
		{"has space", "U+0020"},
		{"slash/no", "U+002F"},
		{"umlaut-ü", "U+00FC"},
		{"ctl\x1b[2J", "U+001B"},
		{"plus+", "U+002B"},
	}
	for _, tt := range tests {
		err := ValidateIdempotencyKey(tt.key)
		if tt.want == "" {
			require.NoError(t, err, tt.key)
			continue
		}
		require.ErrorIs(t, err, ErrInvalidKey, tt.key)
		require.ErrorContains(t, err, tt.want)
		require.NotContains(t, err.Error(), "\x1b")
	}
}

func TestIdempotencyKey(t *testing.T) {
	long := strings.Repeat("B", 300)
	tests := []struct {
		name, sender, business string
		n                      int
		want                   string
		wantErr                string
	}{
		{"plain", "4012345000009", "PO4711", 1, "4012345000009:PO4711:orders:1", ""},
		{"allowed punctuation kept", "ID_1.x", "PO-4711.A", 12, "ID_1.x:PO-4711.A:orders:12", ""},
		{"spaces and slash replaced, tagged", "4012345000009", "PO 47/11", 2, "4012345000009:PO-47-11.h", ""},
		{"colon inside a part replaced", "ZZ:1", "PO", 1, "ZZ-1:PO.h", ""},
		{"umlaut is one replacement", "Müller", "1", 1, "M-ller:1.h", ""},
		{"surrounding space trimmed", " 401 ", "PO", 1, "401:PO.h", ""},
		{"n zero", "s", "b", 0, "", "≥ 1"},
		{"empty sender", "", "b", 1, "", "must not be empty"},
		{"blank business", "s", "   ", 1, "", "must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := IdempotencyKey(tt.sender, tt.business, tt.n)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidKey)
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.NoError(t, ValidateIdempotencyKey(k))
			require.True(t, strings.HasPrefix(k, tt.want), "%q has no prefix %q", k, tt.want)
			if strings.Contains(tt.want, ".h") {
				require.Regexp(t, `\.h[0-9a-f]{10}:orders:\d+$`, k)
			} else {
				require.Equal(t, tt.want, k)
			}
		})
	}

	t.Run("long parts stay within 200, deterministic, distinct", func(t *testing.T) {
		k1, err := IdempotencyKey(strings.Repeat("S", 100), long, 123456)
		require.NoError(t, err)
		require.Len(t, k1, MaxKeyLen)
		require.True(t, strings.HasSuffix(k1, ":orders:123456"))
		require.True(t, strings.HasPrefix(k1, strings.Repeat("S", 64)+":BBB"))
		again, _ := IdempotencyKey(strings.Repeat("S", 100), long, 123456)
		require.Equal(t, k1, again)
		k2, _ := IdempotencyKey(strings.Repeat("S", 100), long+"C", 123456)
		require.NotEqual(t, k1, k2, "IDs differing only past the cut get different keys")
	})
	t.Run("replacement collisions are told apart", func(t *testing.T) {
		a, _ := IdempotencyKey("s", "PO 1", 1)
		b, _ := IdempotencyKey("s", "PO/1", 1)
		c, _ := IdempotencyKey("s", "PO-1", 1)
		require.NotEqual(t, a, b)
		require.NotEqual(t, a, c)
		require.Equal(t, "s:PO-1:orders:1", c)
	})
	t.Run("next n is a different key", func(t *testing.T) {
		a, _ := IdempotencyKey("s", "PO 1", 1)
		b, _ := IdempotencyKey("s", "PO 1", 2)
		require.Equal(t, strings.TrimSuffix(a, "1"), strings.TrimSuffix(b, "2"))
	})
}

func TestUploadRefusedBeforeSending(t *testing.T) {
	var n atomic.Int32
	env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	ctx := context.Background()
	_, err := env.c.Upload(ctx, "k", bytes.NewReader(nil), MaxPayloadSize+1)
	require.ErrorIs(t, err, ErrPayloadTooLarge)
	require.ErrorContains(t, err, "nothing was sent")
	_, err = env.c.Upload(ctx, "bad key", strings.NewReader("x"), 1)
	require.ErrorIs(t, err, ErrInvalidKey)
	_, err = env.c.Upload(ctx, "k", strings.NewReader(""), 0)
	require.ErrorIs(t, err, ErrInvalidRequest)
	_, err = env.c.Upload(ctx, "k", strings.NewReader("short"), 6)
	require.ErrorContains(t, err, "fewer than the 6 bytes")
	require.Zero(t, n.Load())
}

func TestUploadResults(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		replay   bool
		sentinel error
	}{
		{"202 accepted", 202, `{"uploadId":"u-1","interchangeId":"i-1","status":"accepted","replay":false}`, false, nil},
		{"200 replay", 200, `{"uploadId":"u-1","status":"accepted","replay":true}`, true, nil},
		{"409 same key other bytes", 409, `{"error":{"code":"ERR_B2B_EXCHANGE_CONFLICT","message":"key used"}}`, false, ErrConflict},
		{"413", 413, `{"error":{"code":"ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE","message":"big"}}`, false, ErrPayloadTooLarge},
		{"400", 400, `{"error":{"code":"ERR_B2B_EXCHANGE_INVALID_REQUEST","message":"ctype"}}`, false, ErrInvalidRequest},
		{"202 without uploadId", 202, `{"status":"accepted"}`, false, ErrUnexpected},
		{"201 is not the contract", 201, `{"uploadId":"u"}`, false, ErrUnexpected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			var n atomic.Int32
			env := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				got, _ = io.ReadAll(r.Body)
				require.Equal(t, "application/edifact", r.Header.Get("Content-Type"))
				require.Equal(t, int64(len("UNA:+.? 'UNB")), r.ContentLength)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			res, err := env.c.Upload(context.Background(), "key-1", strings.NewReader("UNA:+.? 'UNB"), 12)
			require.Equal(t, "UNA:+.? 'UNB", string(got))
			require.Equal(t, int32(1), n.Load(), "never retried")
			if tt.sentinel != nil {
				require.ErrorIs(t, err, tt.sentinel)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.status, res.HTTPStatus)
			require.Equal(t, "u-1", res.UploadID)
			require.Equal(t, tt.replay, res.Replay)
			require.Equal(t, "key-1", res.Key)
			require.Len(t, res.CorrelationID, 32)
		})
	}
}
