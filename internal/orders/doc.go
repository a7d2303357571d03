// Package orders is "an ORDERS we sent": the one implementation of
// "upload an ORDERS interchange" that both faces of b2bx use: `b2bx upload` and the app's
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
// The rest of the package is about what happened to what we sent and
// what a person does about it:
//
//   - Linked ties the connection's accepted uploads to the answers the
//     store holds (edi/answers decides which upload an answer answers).
//   - Fix and resend (doc_resend.go): the uploads an answer rejected, the
//     guard against sending their bytes again, the work copy, the editor
//     and the review.
//   - Bulk (bulk_plan.go, bulk_send.go): replay or resend a marked set of
//     uploads, previewed with each key and the expected answer, then
//     sent step by step as previewed.
//
// The package imports no UI code; texts it returns for display are
// terminal-safe unless a field's comment says otherwise.
package orders
