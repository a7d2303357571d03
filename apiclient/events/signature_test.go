package events

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// canarySecret is planted to prove that no output path shows a secret.
const canarySecret = "CANARY-WEBHOOK-SECRET-7f3a"

// Vectors computed outside Go: `printf '%s' "$t.$body" | openssl dgst
// -sha256 -hmac "$key"`, cross-checked with Python's hmac module.
var literalVectors = []struct {
	key  string
	t    int64
	body string
	v1   string
}{
	{"demo-webhook-key", 1700000000, `{"id":"evt-1"}`, "175df9c91ab358c8457f4b8210994a1a896ad79fc452ae7d66ee405345d32ee2"},
	{"demo-webhook-key", 1700000000, ``, "95e28066ab52308f868d361ed05ef73b8524bf8b67c80465ac8a0d315df10682"},
	{"rotated-key-2", 1712345678, "[{\"a\":1},\n{\"b\":\"\u00e4\"}]\n", "bfefdd8d77850b0d524c0683d078b667c2e08ba52448dea01ed0aba22ee27417"},
}

func TestSignLiteralVectors(t *testing.T) {
	for _, v := range literalVectors {
		got := Sign(secret.New(v.key), v.t, []byte(v.body))
		require.Equal(t, "t="+strconv.FormatInt(v.t, 10)+",v1="+v.v1, got)
		r, err := Verify(SignatureHeader+": "+got, []byte(v.body), []Secret{secret.New(v.key)}, time.Unix(v.t, 0))
		require.NoError(t, err)
		require.True(t, r.Valid, r.Explain())
	}
}

// TestSignMatchesOpenSSL compares Sign with openssl's HMAC on random keys
// (any bytes, passed as hex) and bodies (binary, NUL, CR LF, invalid
// UTF-8).
func TestSignMatchesOpenSSL(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		if os.Getenv("B2BX_REQUIRE_TOOLS") == "1" {
			t.Fatalf("openssl is required (B2BX_REQUIRE_TOOLS=1): %v", err)
		}
		t.Skip("openssl not installed: the independent HMAC check is skipped (the literal vectors still run)")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 12 {
		key := make([]byte, 1+rng.IntN(80))
		body := make([]byte, rng.IntN(3000))
		for j := range key {
			key[j] = byte(rng.UintN(256))
		}
		for j := range body {
			body[j] = byte(rng.UintN(256))
		}
		if i == 0 {
			body = []byte("{\"x\":1}\r\n\x00\xff")
		}
		ts := int64(1_600_000_000 + rng.IntN(300_000_000))
		cmd := exec.Command(bin, "dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:"+hex.EncodeToString(key))
		cmd.Stdin = bytes.NewReader(append([]byte(strconv.FormatInt(ts, 10)+"."), body...))
		out, err := cmd.Output()
		require.NoError(t, err)
		want := strings.TrimSpace(string(out[bytes.LastIndex(out, []byte("= "))+2:]))
		require.Len(t, want, 64, "openssl output %q", out)
		require.Equal(t, fmt.Sprintf("t=%d,v1=%s", ts, want), Sign(secret.New(string(key)), ts, body))
	}
}

// TestSignMatchesOpenSSLHMACFlag checks text secrets (as operators paste
// them) with the plain `openssl dgst -sha256 -hmac KEY` form, over bodies
// as the capture fixtures hold them: the platform's recipe verbatim.
func TestSignMatchesOpenSSLHMACFlag(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		if os.Getenv("B2BX_REQUIRE_TOOLS") == "1" {
			t.Fatalf("openssl is required (B2BX_REQUIRE_TOOLS=1): %v", err)
		}
		t.Skip("openssl not installed: the independent HMAC check is skipped (the literal vectors still run)")
	}
	fixture, err := os.ReadFile("testdata/batch_issues.json")
	require.NoError(t, err)
	for _, tc := range []struct {
		key  string
		t    int64
		body []byte
	}{
		{"CANARY-whsec-pasted-9f2e", 1741775460, []byte(`{"id":"evt-1"}`)},
		{demoKey, 1700000000, nil},
		{"k", 1, fixture},
		{"rotated-key-2", 1712345678, []byte("[{\"a\":1},\r\n{\"b\":\"\u00e4\"}]\n")},
	} {
		cmd := exec.Command(bin, "dgst", "-sha256", "-hmac", tc.key)
		cmd.Stdin = bytes.NewReader(append([]byte(strconv.FormatInt(tc.t, 10)+"."), tc.body...))
		out, err := cmd.Output()
		require.NoError(t, err)
		want := strings.TrimSpace(string(out[bytes.LastIndex(out, []byte("= "))+2:]))
		require.Len(t, want, 64, "openssl output %q", out)
		got := Sign(secret.New(tc.key), tc.t, tc.body)
		require.Equal(t, fmt.Sprintf("t=%d,v1=%s", tc.t, want), got)
		r, err := Verify(SignatureHeader+": "+got, tc.body, []Secret{secret.New(tc.key)}, time.Unix(tc.t, 0))
		require.NoError(t, err)
		require.True(t, r.Valid, r.Explain())
	}
}

// TestVerifyComparesEveryPairInConstantTime: every comparison of an HMAC
// goes through macEqual, which is hmac.Equal, and every secret meets
// every v1 whether or not one already matched (no early exit whose timing
// tells which one did).
func TestVerifyComparesEveryPairInConstantTime(t *testing.T) {
	require.Equal(t, reflect.ValueOf(hmac.Equal).Pointer(), reflect.ValueOf(macEqual).Pointer(), "macEqual must be hmac.Equal (constant time)")
	orig := macEqual
	calls := 0
	macEqual = func(a, b []byte) bool { calls++; return orig(a, b) }
	t.Cleanup(func() { macEqual = orig })

	key, other := secret.New(canarySecret), secret.New("other-key")
	body := []byte(`{"id":"e1"}`)
	good := Sign(key, 1700000000, body)
	mac := good[strings.Index(good, "v1=")+3:]
	zeros := strings.Repeat("0", 64)
	for _, tc := range []struct {
		header  string
		secrets []Secret
		valid   bool
	}{
		{fmt.Sprintf("t=1700000000,v1=%s,v1=%s,v1=%s", mac, zeros, zeros), []Secret{key, other}, true},
		{fmt.Sprintf("t=1700000000,v1=%s,v1=%s,v1=%s", zeros, zeros, mac), []Secret{other, key}, true},
		{fmt.Sprintf("t=1700000000,v1=%s,v1=%s,v1=%s", zeros, zeros, zeros), []Secret{other, key}, false},
	} {
		calls = 0
		r, err := Verify(tc.header, body, tc.secrets, time.Unix(1700000000, 0))
		require.NoError(t, err)
		require.Equal(t, tc.valid, r.Valid)
		require.Equal(t, 6, calls, "2 secrets × 3 v1: every pair compared")
	}
}

// TestVerifySkewInWholeSeconds: the clock counts whole Unix seconds, like
// t, so verdict and shown skew agree at the ±300 s boundary, and a t
// centuries away neither overflows nor passes.
func TestVerifySkewInWholeSeconds(t *testing.T) {
	key := secret.New("k")
	h := Sign(key, 1000, nil)
	for _, tc := range []struct {
		now   time.Time
		valid bool
		skew  int64
		text  string
	}{
		{time.Unix(1300, 999_999_999), true, 300, "300s behind the clock (limit ±300s)"},
		{time.Unix(1301, 0), false, 301, "301s behind the clock, more than"},
		{time.Unix(700, 0), true, -300, "300s ahead of the clock (limit ±300s)"},
		{time.Unix(699, 999_999_999), false, -301, "301s ahead of the clock, more than"},
		{time.Unix(1000, 0), true, 0, "on the clock"},
	} {
		r, err := Verify(h, nil, []Secret{key}, tc.now)
		require.NoError(t, err)
		require.Equal(t, tc.valid, r.Valid, r.Explain())
		require.Equal(t, tc.skew, r.SkewSeconds)
		require.Equal(t, time.Duration(tc.skew)*time.Second, r.Skew)
		require.Contains(t, r.Explain(), tc.text)
	}
	const far = 999999999999999999
	r, err := Verify(Sign(key, far, nil), nil, []Secret{key}, time.Unix(1700000000, 0))
	require.NoError(t, err)
	require.False(t, r.Valid)
	require.Equal(t, []Reason{ReasonSkew}, r.Reasons)
	require.Equal(t, int64(1700000000-far), r.SkewSeconds)
	require.Equal(t, time.Duration(math.MinInt64), r.Skew, "saturated")
	require.Contains(t, r.Explain(), fmt.Sprintf("%ds ahead of the clock", far-1700000000))
}

func TestVerify(t *testing.T) {
	key, other := secret.New(canarySecret), secret.New("other-key")
	body := []byte(`{"id":"e1","data":{}}`)
	const ts = 1700000000
	good := Sign(key, ts, body)
	mac := good[strings.Index(good, "v1=")+3:]
	wrongMac := strings.Repeat("0", 64)
	at := func(d time.Duration) time.Time { return time.Unix(ts, 0).Add(d) }
	tests := []struct {
		name    string
		header  string
		body    []byte
		secrets []Secret
		now     time.Time
		valid   bool
		reasons []Reason
		v1, sec int
	}{
		{"exact", good, body, []Secret{key}, at(0), true, nil, 1, 1},
		{"header line", "x-nb2b-signature:  " + good, body, []Secret{key}, at(0), true, nil, 1, 1},
		{"sender rotation: second v1", fmt.Sprintf("t=%d,v1=%s,v1=%s", ts, wrongMac, mac), body, []Secret{key}, at(0), true, nil, 2, 1},
		{"receiver rotation: second secret", good, body, []Secret{other, key}, at(0), true, nil, 1, 2},
		{"unknown scheme ignored", fmt.Sprintf("v0=abc,t=%d,v2=zz,v1=%s", ts, mac), body, []Secret{key}, at(0), true, nil, 1, 1},
		{"300s old passes", good, body, []Secret{key}, at(300 * time.Second), true, nil, 1, 1},
		{"300s ahead passes", good, body, []Secret{key}, at(-300 * time.Second), true, nil, 1, 1},
		{"301s old", good, body, []Secret{key}, at(301 * time.Second), false, []Reason{ReasonSkew}, 1, 1},
		{"301s ahead", good, body, []Secret{key}, at(-301 * time.Second), false, []Reason{ReasonSkew}, 1, 1},
		{"one byte changed", good, []byte(`{"id":"e2","data":{}}`), []Secret{key}, at(0), false, []Reason{ReasonMismatch}, 0, 0},
		{"newline added", good, append(append([]byte{}, body...), '\n'), []Secret{key}, at(0), false, []Reason{ReasonMismatch}, 0, 0},
		{"wrong secret", good, body, []Secret{other}, at(0), false, []Reason{ReasonMismatch}, 0, 0},
		{"t rewritten", fmt.Sprintf("t=%d,v1=%s", ts+1, mac), body, []Secret{key}, at(0), false, []Reason{ReasonMismatch}, 0, 0},
		{"both wrong", fmt.Sprintf("t=%d,v1=%s", ts, wrongMac), body, []Secret{key}, at(time.Hour), false, []Reason{ReasonMismatch, ReasonSkew}, 0, 0},
		{"malformed", "t=1,v1=xyz", body, []Secret{key}, at(0), false, []Reason{ReasonMalformed}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Verify(tc.header, tc.body, tc.secrets, tc.now)
			require.NoError(t, err)
			require.Equal(t, tc.valid, r.Valid, r.Explain())
			require.Equal(t, tc.reasons, r.Reasons)
			require.Equal(t, tc.v1, r.MatchedV1)
			require.Equal(t, tc.sec, r.MatchedSecret)
			if tc.valid {
				require.Empty(t, r.Code)
				require.True(t, strings.HasPrefix(r.Explain(), "valid"))
			} else {
				require.Equal(t, NBSignature, r.Code)
				require.Contains(t, r.Explain(), "invalid (NB-E008)")
			}
			assertNoCanary(t, r)
		})
	}
}

func TestVerifyExplainsSkew(t *testing.T) {
	key := secret.New("k")
	h := Sign(key, 1000, nil)
	r, err := Verify(h, nil, []Secret{key}, time.Unix(1412, 0))
	require.NoError(t, err)
	require.Equal(t, int64(412), r.SkewSeconds)
	require.Contains(t, r.Explain(), "412s behind the clock")
	require.Contains(t, r.Explain(), "±300s")
	r, err = Verify(h, nil, []Secret{key}, time.Unix(600, 0))
	require.NoError(t, err)
	require.Contains(t, r.Explain(), "400s ahead of the clock")
}

func TestVerifyWithoutClockSkipsTimestamp(t *testing.T) {
	key := secret.New("k")
	r, err := VerifyAt(Sign(key, 1, []byte("b")), []byte("b"), []Secret{key}, time.Time{}, 0)
	require.NoError(t, err)
	require.True(t, r.Valid)
	require.False(t, r.TimestampChecked)
}

func TestVerifyNeedsASecret(t *testing.T) {
	_, err := Verify("t=1,v1="+strings.Repeat("a", 64), nil, nil, time.Now())
	require.ErrorIs(t, err, ErrNoSecret)
	_, err = Verify("t=1,v1="+strings.Repeat("a", 64), nil, []Secret{secret.New("")}, time.Now())
	require.ErrorIs(t, err, ErrNoSecret)
	_, err = Verify("t=1", nil, []Secret{secret.New(strings.Repeat("x", maxSecretLen+1))}, time.Now())
	require.ErrorContains(t, err, "not a webhook secret")
}

func assertNoCanary(t *testing.T, v any) {
	t.Helper()
	j, err := json.Marshal(v)
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), string(j)} {
		require.NotContains(t, s, canarySecret)
	}
	if r, ok := v.(Result); ok {
		require.NotContains(t, r.Explain(), canarySecret)
	}
}

var v1a = strings.Repeat("ab", 32)

func TestParseSignatureHeaderGood(t *testing.T) {
	tests := []struct {
		in      string
		t       string
		v1      int
		ignored []string
	}{
		{"t=1700000000,v1=" + v1a, "1700000000", 1, nil},
		{"X-NB2B-Signature: t=1700000000,v1=" + v1a, "1700000000", 1, nil},
		{"x-nb2b-signature:t=5,v1=" + v1a, "5", 1, nil},
		{"  t=0 , v1=" + strings.ToUpper(v1a) + "\t", "0", 1, nil},
		{"v1=" + v1a + ",t=9,v1=" + v1a, "9", 2, nil},
		{"t=9,v0=old,v1=" + v1a + ",scheme_x=1", "9", 1, []string{"v0", "scheme_x"}},
	}
	for _, tc := range tests {
		sig, err := ParseSignatureHeader(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.t, sig.T)
		require.Len(t, sig.V1, tc.v1)
		require.Equal(t, tc.ignored, sig.Ignored)
	}
}

func TestParseSignatureHeaderBad(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "element 1 is empty"},
		{"X-NB2B-Signature:", "element 1 is empty"},
		{"t=1,t=1,v1=" + v1a, "t appears twice"},
		{"t=1,t=2,v1=" + v1a, "t appears twice"},
		{"v1=" + v1a, "no t="},
		{"t=1", "no v1="},
		{"t=1,v0=" + v1a, "no v1="},
		{"t=1,v1=" + v1a[:63], "63 characters"},
		{"t=1,v1=" + v1a + "ab", "66 characters"},
		{"t=1,v1=" + strings.Repeat("zz", 32), "not hexadecimal"},
		{"t=1,v1=", "0 characters"},
		{"t=,v1=" + v1a, "t is empty"},
		{"t=-1,v1=" + v1a, "decimal digits"},
		{"t=+1,v1=" + v1a, "decimal digits"},
		{"t=1.5,v1=" + v1a, "decimal digits"},
		{"t=1700000000000000000000,v1=" + v1a, "digits"},
		{"t=01,v1=" + v1a, "leading zero"},
		{"t=1,,v1=" + v1a, "element 2 is empty"},
		{"t=1,v1=" + v1a + ",", "element 3 is empty"},
		{",t=1,v1=" + v1a, "element 1 is empty"},
		{"t=1;v1=" + v1a, "'=' or whitespace"},
		{"t=1 v1=" + v1a, "'=' or whitespace"},
		{"t 1,v1=" + v1a, "no '='"},
		{"=1,v1=" + v1a, "the key must be"},
		{"t=1,v1=" + v1a + ",x y=1", "the key must be"},
		{"t=1,v1=" + v1a + "\r\nX: y", "control or non-ASCII"},
		{"t=1,v1=" + v1a + "\x1b[2J", "control or non-ASCII"},
		{"t=1,v1=" + v1a + ",ä=1", "control or non-ASCII"},
		{"Content-Type: t=1,v1=" + v1a, "Content-Type header, not X-NB2B-Signature"},
		{"X NB2B: t=1", "not a header name"},
		{strings.Repeat("v0=1,", 20) + "t=1,v1=" + v1a, "elements"},
		{"t=1,v1=" + v1a + "," + strings.Repeat("x", 5000), "longer than 4096"},
		// The fuzzer's find: a long "header name" was quoted whole.
		{strings.Repeat("0", 225) + ":", "0000000000000000000000000000000000000000… header, not X-NB2B-Signature"},
		{strings.Repeat("0", 212) + "= 0", "element 1 (0000000000000000000000000000000000000000…): the value contains"},
	}
	for _, tc := range tests {
		_, err := ParseSignatureHeader(tc.in)
		require.Error(t, err, "%q", tc.in)
		require.ErrorIs(t, err, ErrMalformedHeader)
		var he *HeaderError
		require.True(t, errors.As(err, &he))
		require.Contains(t, err.Error(), tc.want, "%q", tc.in)
		require.LessOrEqual(t, len(err.Error()), 300, "errors stay short: %q", tc.in)
	}
}

func FuzzParseSignatureHeader(f *testing.F) {
	for _, s := range []string{"t=1700000000,v1=" + v1a, "X-NB2B-Signature: t=1,v1=" + v1a + ",v1=" + v1a, "t=1,v0=x,v1=" + v1a, "t=01,v1=", ",,", "t=1,t=2", "a:b:c=d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSignatureHeader(s)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformedHeader)
			require.LessOrEqual(t, len(err.Error()), 300, "errors stay short and never echo the header")
			return
		}
		require.NotEmpty(t, sig.V1)
		require.LessOrEqual(t, len(sig.V1), maxSignatures+1)
		require.Equal(t, strconv.FormatInt(sig.Timestamp, 10), sig.T, "t round-trips exactly")
		// A canonical re-rendering parses to the same signature.
		parts := []string{"t=" + sig.T}
		for _, m := range sig.V1 {
			parts = append(parts, "v1="+hex.EncodeToString(m[:]))
		}
		again, err := ParseSignatureHeader(strings.Join(parts, ","))
		require.NoError(t, err)
		require.Equal(t, sig.T, again.T)
		require.Equal(t, sig.V1, again.V1)
	})
}

func FuzzSignVerify(f *testing.F) {
	f.Add("k", int64(1700000000), []byte(`{"a":1}`), byte(0))
	f.Fuzz(func(t *testing.T, key string, ts int64, body []byte, flip byte) {
		if key == "" || len(key) > maxSecretLen || ts < 0 {
			return
		}
		h := Sign(secret.New(key), ts, body)
		r, err := Verify(h, body, []Secret{secret.New(key)}, time.Unix(ts, 0))
		require.NoError(t, err)
		require.True(t, r.Valid, r.Explain())
		if len(body) > 0 {
			changed := append([]byte{}, body...)
			changed[int(flip)%len(changed)] ^= 1
			r, err = Verify(h, changed, []Secret{secret.New(key)}, time.Unix(ts, 0))
			require.NoError(t, err)
			require.False(t, r.Valid)
		}
	})
}
