package events

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/require"
)

// The RFC 8785 examples (sections 3.2.2 and 3.2.3).
func TestCanonicalizeRFC8785(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := Canonicalize([]byte(in))
	require.NoError(t, err)
	require.Equal(t, want, string(got))

	sorted := `{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
	got, err = Canonicalize([]byte(sorted))
	require.NoError(t, err)
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(got)))
	tok, _ := dec.Token()
	require.Equal(t, json.Delim('{'), tok)
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		_, _ = dec.Token()
	}
	require.Equal(t, []string{"\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"}, keys)
}

func TestES6Number(t *testing.T) {
	// Expected strings are what JavaScript's String(n) prints.
	tests := map[float64]string{
		0: "0", math.Copysign(0, -1): "0", 1: "1", -1: "-1", 1.5: "1.5", 100: "100", 1e21: "1e+21", 1e20: "100000000000000000000",
		123456789012345680000: "123456789012345680000", 0.000001: "0.000001", 0.0000001: "1e-7", 1.2e-7: "1.2e-7",
		5e-324: "5e-324", math.MaxFloat64: "1.7976931348623157e+308", 9007199254740993: "9007199254740992",
	}
	for f, want := range tests {
		require.Equal(t, want, es6Number(f), "%v", f)
	}
	a, b := 0.1, 0.2 // variables: constants would add exactly
	require.Equal(t, "0.30000000000000004", es6Number(a+b))
	_, err := Canonicalize([]byte(`[1e400]`))
	require.ErrorContains(t, err, "outside IEEE 754")
	_, err = Canonicalize([]byte("\"\xff\""))
	require.ErrorContains(t, err, "UTF-8")
}

func loadJWKS(t testing.TB) *JWKS {
	raw, err := os.ReadFile("testdata/jws/jwks.json")
	require.NoError(t, err)
	k, err := ParseJWKS(raw)
	require.NoError(t, err)
	return k
}

// The fixture's signatures were made with Python's cryptography package
// (Ed25519 and ECDSA P-256, JCS by json.dumps with sorted keys), not with
// go-jose.
func TestInspectJWSFixture(t *testing.T) {
	r := inspectPath(t, "testdata/jws/signed_batch.json", Options{JWKS: loadJWKS(t)})
	require.Equal(t, []Code{CodeJWSValid}, codes(r, 0, ""))
	require.Contains(t, finding(t, r, CodeJWSValid).Message, `EdDSA by kid "ed-1"`)
	require.Equal(t, []Code{CodeJWSValid}, codes(r, 1, ""))
	require.Equal(t, []Code{CodeJWSInvalid}, codes(r, 2, ""))
	require.Contains(t, r.Findings[2].Message, "the event changed after signing")
	require.Equal(t, []Code{CodeJWSInvalid}, codes(r, 3, ""))
	require.Contains(t, r.Findings[3].Message, `kid "ed-old" is not in the JWKS`)
	require.Equal(t, []Outcome{OutcomeProcessed, OutcomeProcessed, OutcomeRejected, OutcomeRejected}, outcomes(r))

	// Without a JWKS the signatures are noted, not judged.
	r = inspectPath(t, "testdata/jws/signed_batch.json", Options{})
	require.Zero(t, r.Errors)
	require.Equal(t, []Code{CodeJWSNotChecked}, codes(r, 0, SevInfo))
}

func TestVerifyJWSRoundTrip(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	keySet := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: ecKey.Public(), KeyID: "ec"}, {Key: edKey.Public(), KeyID: "ed"}, {Key: p384.Public(), KeyID: "p384"},
	}}
	raw, err := json.Marshal(keySet)
	require.NoError(t, err)
	jwks, err := ParseJWKS(raw)
	require.NoError(t, err)
	require.Equal(t, 3, jwks.Len())

	ev := newEvent(1)
	for _, tc := range []struct {
		key crypto.Signer
		alg jose.SignatureAlgorithm
		kid string
	}{{ecKey, jose.ES256, "ec"}, {edKey, jose.EdDSA, "ed"}, {ecKey, jose.ES256, ""}} {
		s, err := SignJWS(body(t, ev), tc.key, tc.alg, tc.kid)
		require.NoError(t, err)
		signed := newEvent(1, set("signature", s))
		res, err := VerifyJWS(body(t, signed), jwks)
		require.NoError(t, err, "%s %q", tc.alg, tc.kid)
		require.Equal(t, string(tc.alg), res.Algorithm)

		// Any change to a signed member breaks it; re-ordering does not.
		changed := newEvent(1, set("signature", s), set("subject", "PO-2"))
		_, err = VerifyJWS(body(t, changed), jwks)
		require.ErrorIs(t, err, ErrJWS)
	}

	// ES384 is not allowed; neither is an attached payload or garbage.
	s384, err := SignJWS(body(t, ev), p384, jose.ES384, "p384")
	require.NoError(t, err)
	for _, bad := range []string{s384, "x", "a.b.c", strings.Repeat("a", maxJWSLen+1)} {
		_, err = VerifyJWS(body(t, newEvent(1, set("signature", bad))), jwks)
		require.ErrorIs(t, err, ErrJWS, bad)
	}
	full, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: ecKey}, nil)
	require.NoError(t, err)
	obj, err := full.Sign([]byte("attached"))
	require.NoError(t, err)
	attached, err := obj.CompactSerialize()
	require.NoError(t, err)
	_, err = VerifyJWS(body(t, newEvent(1, set("signature", attached))), jwks)
	require.ErrorIs(t, err, ErrJWS)

	r := inspectBodies(t, Options{JWKS: jwks}, body(t, newEvent(1, set("signature", 5))), body(t, newEvent(2)))
	require.Equal(t, []Code{CodeJWSInvalid}, codes(r, 0, SevError))
	require.Equal(t, []Code{CodeJWSNotChecked}, codes(r, 1, SevInfo))
}

func TestParseJWKSRefuses(t *testing.T) {
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	priv, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: edKey, KeyID: "oops"}}})
	require.NoError(t, err)
	_, err = ParseJWKS(priv)
	require.ErrorContains(t, err, "private key")
	_, err = ParseJWKS([]byte(`{"keys":[]}`))
	require.ErrorContains(t, err, "none of its 0 keys")
	_, err = ParseJWKS([]byte(`[`))
	require.ErrorContains(t, err, "not a key set")
	rsaOnly := `{"keys":[{"kty":"oct","k":"AAAA","kid":"h"}]}`
	_, err = ParseJWKS([]byte(rsaOnly))
	require.Error(t, err)
}

// FuzzCanonicalize: the canonical form is valid JSON with the same value,
// canonical itself, and its numbers read back to the same doubles.
func FuzzCanonicalize(f *testing.F) {
	f.Add([]byte(`{"b":[1,2.5e-9,-0,1e21],"a":"\u00e9\n","c":{"z":null,"y":true}}`))
	f.Add([]byte(`[333333333.33333329, 1E30, 4.50, 2e-3]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := Canonicalize(raw)
		if err != nil {
			return
		}
		require.True(t, json.Valid(c), "%q", c)
		again, err := Canonicalize(c)
		require.NoError(t, err)
		require.Equal(t, string(c), string(again))
		var a, b any
		require.NoError(t, json.Unmarshal(raw, &a))
		require.NoError(t, json.Unmarshal(c, &b))
		require.Equal(t, a, b)
	})
}
