package events

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

func TestReadPathConventions(t *testing.T) {
	dir := t.TempDir()
	b := body(t, newEvent(1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), b, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.headers"), []byte("X-NB2B-Signature: "+Sign(secret.New("k"), 1, b)+"\r\nDate: Wed, 12 Mar 2025 10:31:05 GMT\r\n"), 0o600))
	ds, err := ReadPath(filepath.Join(dir, "a.json"))
	require.NoError(t, err)
	require.Equal(t, b, ds[0].Body)
	require.NotEmpty(t, ds[0].Header.Get(SignatureHeader))

	_, err = ReadPath(filepath.Join(dir, "a.headers"))
	require.ErrorIs(t, err, ErrUnreadable)
	require.ErrorContains(t, err, "headers file")
	_, err = ReadPath(filepath.Join(dir, "missing.json"))
	require.ErrorIs(t, err, ErrUnreadable)
	empty := t.TempDir()
	_, err = ReadPath(empty)
	require.ErrorContains(t, err, "holds no")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.headers"), []byte("not a header line\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.json"), b, 0o600))
	_, err = ReadPath(dir)
	require.ErrorIs(t, err, ErrUnreadable)
	require.ErrorContains(t, err, "b.headers")
}

func TestParseHTTPRequest(t *testing.T) {
	b := `{"a":1}`
	tests := []struct {
		name     string
		raw      string
		body     string
		trailing int
		toEOF    bool
	}{
		{"crlf", "POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n" + b, b, 0, false},
		{"lf only", "POST /h HTTP/1.1\nHost: x\nContent-Length: 7\n\n" + b + "\n", b, 1, false},
		{"chunked", "POST /h HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n", b, 0, false},
		{"no length", "POST /h HTTP/1.1\r\nHost: x\r\n\r\n" + b, b, 0, true},
		{"empty body", "POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseHTTPRequest("x", []byte(tc.raw))
			require.NoError(t, err)
			require.Equal(t, tc.body, string(d.Body))
			require.Equal(t, tc.trailing, d.TrailingBytes)
			require.Equal(t, tc.toEOF, d.BodyToEOF)
		})
	}
	_, err := ParseHTTPRequest("x", []byte("POST /h HTTP/1.1\r\nContent-Length: 50\r\n\r\nshort"))
	require.ErrorIs(t, err, ErrUnreadable)
	require.ErrorContains(t, err, "shorter than announced")
}

func FuzzParseHTTPRequest(f *testing.F) {
	for _, p := range []string{"testdata/captures/002.http", "testdata/captures/003.http"} {
		raw, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := ParseHTTPRequest("f", raw)
		if err != nil {
			require.ErrorIs(t, err, ErrUnreadable)
			return
		}
		require.LessOrEqual(t, len(d.Body)+d.TrailingBytes, len(raw))
	})
}
