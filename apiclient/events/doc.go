// Package events checks the platform's webhook event deliveries the way a
// receiver does, for support engineers answering tickets about rejected
// signatures (NB-E008), duplicates (NB-E005), parked out-of-order
// events (NB-E006) and rate limits (NB-E012). The rules are those of the
// event delivery and security document
// (../shared/seeds/000_57ba23f739a862a2.txt).
//
// # Webhook signatures
//
// Sign and Verify implement X-NB2B-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256(secret, t + "." + raw body)>. The HMAC covers the exact raw
// body bytes and t exactly as written in the header; the secret's bytes
// are the key as given (no base64 or hex decoding). Comparison is
// constant-time (hmac.Equal); every receiver secret is tried against every
// v1, so both sides can rotate. A timestamp more than 300 s from the
// receiver's clock, either way, is rejected (exactly 300 s passes; the
// clock is read in whole Unix seconds, like t, so the skew shown is the
// skew judged).
// ParseSignatureHeader documents the strict header grammar. A webhook
// secret is a Secret (apiclient/secret.Value): it never appears in a
// Result, a Finding, an error or any formatted output.
//
// # Inspecting deliveries
//
// Inspect takes captured deliveries (ReadPath reads files and
// directories: see there for the NAME.json + NAME.headers and NAME.http
// conventions) and returns a Report: per event the envelope v2 checks,
// across events the receiver's idempotency and ordering behaviour, and
// signature verdicts. Each Finding has a stable Code, a Severity, the
// delivery and event it concerns, a JSON path and a message that says what
// to do. Event content is untrusted: sanitise (internal/termsafe) before
// showing any of it on a terminal.
//
// Decisions where the rules are silent:
//
//   - "1 MB" and "10 MB" are read as MiB: above that is an error; between
//     the decimal and binary reading a warning. Event size is the event's
//     own JSON bytes; batch size the whole body.
//   - A body is one event (a JSON object) or a batch (a JSON array of
//     events, signed as one body).
//   - An event with an error finding is rejected: its sequence is not
//     consumed, but its idempotency key is remembered, so a fixed resend
//     under the same key gets DUPLICATE with the original rejection (the
//     rules say: fix and send with a new key and the same sequence).
//   - An event in a delivery rejected as a whole (signature, oversized
//     batch, unreadable body) is rejected before it is read: neither its
//     key nor its sequence is remembered (unauthenticated content must not
//     change a receiver's state, and the sender, getting no ACK, retries
//     the same event), so a retry that passes is processed as new.
//   - Idempotency keys are remembered per receiver. A repeat with the same
//     body (compared as JSON values) is a normal at-least-once redelivery
//     (warning); with a different body it is an error, since the receiver
//     drops the changed version.
//   - Ordering is per sender+subject. A stream starts at the lowest
//     sequence in the set (Options.StartAtOne: at 1). A sequence above the
//     next expected one is parked and released when the gap fills; a
//     sequence at or below the last processed one is rejected. What is
//     still parked at the end is an error naming the sequences to replay.
//   - A HEARTBEAT (type nutrab2b.<family>.HEARTBEAT.v2, any case) reports
//     the sender's last sequence per subject in data.last_sequences, as
//     an object {"<subject>": n} or an array [{"subject": …, "sequence":
//     n}]; the rules name the member but not its shape. Once processed,
//     every sequence of that sender+subject above the last processed one
//     up to n that is not parked is missing (SEQUENCE_MISSING when
//     nothing is parked): the sender replays it unchanged. A subject with
//     no event in the set is only noted (its start is unknown), unless
//     Options.StartAtOne.
//   - The key form <sender GLN>:<business id>:<event>:<n> is a
//     recommendation: deviations are warnings. The business id may contain
//     ':'; the GLN must carry a valid GS1 check digit and equal the
//     sender; the event part should name the event of the type.
//   - Attachments (at the top level or in data) need doc_type, an https
//     uri (url is accepted as its name) without credentials, and sha256 as
//     64 hex digits. An inline PDF is found in any string by base64 of
//     "%PDF-" (JVBERi0), a data:application/pdf URI, the raw magic or its
//     hex.
//   - Rate: the events of one sender whose deliveries were signed in the
//     same second (the signature's t) are counted; beyond 100 (the default
//     limit per partner) is a warning with NB-E012 (Retry-After), since a
//     partner's limit may be higher. Events rejected before they were
//     read, and deliveries without headers, are not counted.
//   - A causationid not in the set is a warning (it may have been
//     delivered earlier).
//   - envelope.signature is a compact JWS with a detached (empty) payload,
//     alg ES256 or EdDSA, over the event without its signature member in
//     the JSON Canonicalization Scheme (RFC 8785, see Canonicalize); the
//     key is the JWKS entry named by the header's kid. The rules name the
//     detached JWS but not its payload: JCS keeps it valid when a hop
//     re-serialises the event.
package events
