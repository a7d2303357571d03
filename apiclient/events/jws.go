package events

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// JWSAlgorithms are the envelope.signature algorithms the rules allow.
var JWSAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}

// maxJWSLen bounds an envelope.signature: an ES256 or EdDSA compact JWS
// with a modest header is a few hundred bytes.
const maxJWSLen = 8 << 10

// ErrJWS matches every failed envelope.signature check.
var ErrJWS = errors.New("envelope.signature does not verify")

// JWKS is a sender's published key set (RFC 7517) for envelope.signature.
type JWKS struct {
	set jose.JSONWebKeySet
}

// ParseJWKS reads a JWKS document ({"keys":[…]}). It refuses private keys
// (a published set holds public keys only) and a set without an EC P-256
// or Ed25519 key.
func ParseJWKS(raw []byte) (*JWKS, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("JWKS: not a key set {\"keys\":[…]}: %w", err)
	}
	usable := 0
	for i, k := range set.Keys {
		if !k.IsPublic() {
			return nil, fmt.Errorf("JWKS: key %d (kid %q) is a private key: a published JWKS must hold public keys only; remove it and rotate that key", i+1, clip(k.KeyID, 40))
		}
		if keyAlg(k) != "" {
			usable++
		}
	}
	if usable == 0 {
		return nil, fmt.Errorf("JWKS: none of its %d keys is an EC P-256 (ES256) or Ed25519 (EdDSA) public key", len(set.Keys))
	}
	return &JWKS{set: set}, nil
}

// Len is the number of keys in the set.
func (k *JWKS) Len() int { return len(k.set.Keys) }

// keyAlg is the algorithm a key serves, or "" when neither allowed one
// (another key type or curve, or a JWK "alg" naming something else).
func keyAlg(k jose.JSONWebKey) jose.SignatureAlgorithm {
	var alg jose.SignatureAlgorithm
	switch pk := k.Key.(type) {
	case *ecdsa.PublicKey:
		if pk.Curve == elliptic.P256() {
			alg = jose.ES256
		}
	case ed25519.PublicKey:
		alg = jose.EdDSA
	}
	if k.Algorithm != "" && k.Algorithm != string(alg) {
		return ""
	}
	return alg
}

// SigningInput is what a detached envelope.signature signs: the event
// without its "signature" member in the JSON Canonicalization Scheme
// (RFC 8785), so that re-serialising the event does not break it.
// (Decision: the rules name a detached JWS but not its payload.)
func SigningInput(event []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(event))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New("the event is not a JSON object")
	}
	delete(m, "signature")
	var b bytes.Buffer
	if err := writeJCS(&b, m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// JWSResult says which key verified an envelope.signature.
type JWSResult struct {
	KeyID     string `json:"kid"`
	Algorithm string `json:"alg"`
}

// VerifyJWS checks the event's envelope.signature: a compact JWS with a
// detached (empty) payload, alg ES256 or EdDSA, over SigningInput(event),
// by the key of the header's kid in jwks (every usable key when the
// header names none).
func VerifyJWS(event []byte, jwks *JWKS) (JWSResult, error) {
	var env struct {
		Signature *string `json:"signature"`
	}
	if err := json.Unmarshal(event, &env); err != nil || env.Signature == nil {
		return JWSResult{}, fmt.Errorf("%w: the event has no signature string", ErrJWS)
	}
	sig := *env.Signature
	if len(sig) > maxJWSLen {
		return JWSResult{}, fmt.Errorf("%w: %d bytes, more than %d", ErrJWS, len(sig), maxJWSLen)
	}
	if bytes.Count([]byte(sig), []byte(".")) != 2 {
		return JWSResult{}, fmt.Errorf("%w: not a compact JWS (header..signature)", ErrJWS)
	}
	payload, err := SigningInput(event)
	if err != nil {
		return JWSResult{}, fmt.Errorf("%w: %w", ErrJWS, err)
	}
	obj, err := jose.ParseDetached(sig, payload, JWSAlgorithms)
	if err != nil {
		return JWSResult{}, fmt.Errorf("%w: %s (alg must be ES256 or EdDSA and the payload part empty)", ErrJWS, err)
	}
	h := obj.Signatures[0].Protected
	alg := jose.SignatureAlgorithm(h.Algorithm)
	keys := jwks.set.Keys
	if h.KeyID != "" {
		keys = jwks.set.Key(h.KeyID)
		if len(keys) == 0 {
			return JWSResult{}, fmt.Errorf("%w: kid %q is not in the JWKS: the sender must publish it (or signed with a retired key)", ErrJWS, clip(h.KeyID, 60))
		}
	}
	for _, k := range keys {
		if keyAlg(k) != alg {
			continue
		}
		if obj.DetachedVerify(payload, k.Key) == nil {
			return JWSResult{KeyID: k.KeyID, Algorithm: string(alg)}, nil
		}
	}
	return JWSResult{}, fmt.Errorf("%w: no %s key%s in the JWKS verifies it over the event without its signature member (JCS, RFC 8785): the event changed after signing, or the wrong key signed it",
		ErrJWS, alg, kidNote(h.KeyID))
}

func kidNote(kid string) string {
	if kid == "" {
		return " (the header names no kid)"
	}
	return fmt.Sprintf(" with kid %q", clip(kid, 60))
}

// SignJWS signs an event for envelope.signature (tests and demos): a
// compact JWS with a detached payload over SigningInput(event). key is an
// *ecdsa.PrivateKey (P-256, ES256) or ed25519.PrivateKey (EdDSA).
func SignJWS(event []byte, key crypto.Signer, alg jose.SignatureAlgorithm, kid string) (string, error) {
	payload, err := SigningInput(event)
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{}).WithType("JOSE")
	if kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return "", err
	}
	obj, err := s.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.DetachedCompactSerialize()
}

// checkJWS checks envelope.signature when present (and says when it could
// not be checked); required: a missing one is an error.
func (c *checker) checkJWS(ev *Event, jwks *JWKS, required bool) {
	v, ok := ev.members["signature"]
	switch {
	case (!ok || string(v) == "null") && required:
		c.add(SevError, CodeJWSMissing, ev.Delivery, ev, "signature", "no envelope.signature, but this receiver has the JWKS of sender %s and requires every event of it to be signed (detached JWS, ES256 or EdDSA): sign the event and send it with a new idempotency key", clip(ev.Sender, 40))
		return
	case !ok || string(v) == "null":
		if jwks != nil {
			c.add(SevInfo, CodeJWSNotChecked, ev.Delivery, ev, "signature", "no envelope.signature: the event is not signed for non-repudiation (optional)")
		}
		return
	case v[0] != '"':
		c.add(SevError, CodeJWSInvalid, ev.Delivery, ev, "signature", "envelope.signature must be a string: a compact JWS with a detached payload")
		return
	case jwks == nil:
		c.add(SevInfo, CodeJWSNotChecked, ev.Delivery, ev, "signature", "envelope.signature present but not verified: give the sender's JWKS (--jwks FILE)")
		return
	}
	r, err := VerifyJWS(ev.raw, jwks)
	if err != nil {
		c.add(SevError, CodeJWSInvalid, ev.Delivery, ev, "signature", "%s", err)
		return
	}
	c.add(SevInfo, CodeJWSValid, ev.Delivery, ev, "signature", "envelope.signature verifies: %s by kid %q", r.Algorithm, clip(r.KeyID, 60))
}
