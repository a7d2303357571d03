// Package upload is the one implementation of "upload an ORDERS
// interchange" that both faces of b2bx use: `b2bx upload` and the app's
// upload screen. It runs in three steps, so a person sees and decides
// before anything is sent:
//
//  1. Inspect (or InspectBytes) reads the file and runs the pre-flight:
//     size against the 16 MiB limit, the parse verdict, exactly one
//     interchange, only ORDERS, sender and recipient, BGM numbers and
//     directory, each a Check that passed, warns or blocks. NewPlan
//     (Prepare does both) adds the Idempotency-Key from the connection's
//     upload history (CONTRACT.md: <sender>:<business id>:orders:<n>).
//  2. When these bytes were already accepted the operator must Choose:
//     replay (same key, the server answers 200 replay), a new upload
//     (next n) or abort. SetKey replaces the generated key with one the
//     operator typed (ValidateKey checks it while it is typed).
//  3. Send reserves the key in the history (a pending line, before any
//     byte leaves), uploads, records the answer and classifies it: 202
//     accepted, 200 replay, 409, 413, 400, ... with the stable code, what
//     to do, and whether the key is kept for a retry (a network failure
//     or 503: retry with the same key; the server cannot create a
//     duplicate).
//
// The package imports no UI code; texts it returns for display are
// terminal-safe unless a field's comment says otherwise.
package upload
