// Package webhook is the live side of package events: a receiver over
// HTTP (Handler, with a capture Store and a Server with timeouts) that
// answers each delivery by the delivery rules, and a Sender that signs
// envelope v2 events and retries them on the rules' schedule. The CLI's
// `b2bx event listen` and the app's live event inspector both run a
// Handler; `b2bx sim --webhook` and `b2bx demo` send with a Sender.
//
// Per delivery the Handler reads the raw body (at most 10 MiB: 413
// otherwise, and 408 when it does not arrive within BodyTimeout), then
// the events.Receiver verifies the signature (401 NB-E008), checks every
// event's envelope, refuses a sender over 100 events in the current
// second (429 NB-E012 with Retry-After), commits the delivery to the
// Store (fsync, rename, directory fsync) and only then applies the
// idempotency and ordering rules and answers. The answer is JSON:
// {"status","result","code","message","retryAfter","delivery","events":[
// {"index","id","type","sender","subject","idempotencykey","sequence",
// "result","outcome","code","original"}],"released","streams","findings"}.
// result is ACK, PARKED (NB-E006, held: do not resend), DUPLICATE
// (NB-E005, with the original result), REJECTED (do not resend
// unchanged) or RETRY (resend later, unchanged).
//
// A restart replays the Store through a fresh Receiver (Store.Replay)
// before serving, so processed keys and sequences are not forgotten:
// the directory is the receiver's state, and `b2bx event inspect DIR
// --from-start` reads the same deliveries in the same order.
package webhook
