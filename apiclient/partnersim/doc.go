// Package partnersim is an in-memory simulator of the B2B exchange Partner
// API, modelled on net/http/httptest: a [Sim] is a real [http.Handler] and
// [Serve] runs it on a real loopback listener (HTTP/1.1, or HTTP/2 over TLS
// with a throwaway CA) so that clients are tested through the whole
// net/http stack, including trailers, flushing and connection resets.
//
// The simulator follows /work/shared/CONTRACT.md exactly: routes under
// /api/v1/b2b-exchange/partner/connections/{connectionID}, Bearer
// "<key-id>:<secret>" authentication with exact scopes, 404
// ERR_B2B_EXCHANGE_NOT_FOUND for every authentication or authorization
// failure, the error body {"error":{"code","message"}}, the list envelope
// {"data":[...],"meta":{"hasMore","nextCursor"}}, opaque cursors, claims with
// a five-minute lease on an injectable [Clock] and an attempt limit of five,
// payload streams without Content-Length and with the trailer
// X-B2B-Payload-Integrity, acknowledge with receipt and replay, and the
// idempotent inbox with its 16 MiB limit.
//
// Tests shape the behaviour with per-entry [PayloadFault]s (truncation,
// resets, wrong or hostile sizes and hashes in headers and listing, endless
// bodies, trailers) and per-endpoint [EndpointFault]s (error statuses with
// Retry-After, latency, dropped answers, broken paging: [PagingEndless],
// [PagingRepeatCursor], [PagingNoCursor]); a [Delivery] may carry any ID,
// even a hostile one like "..". [Sim.AddBulk] adds thousands of small
// entries cheaply for a large mailbox. Tests inspect what happened through
// [Sim.Requests], [Sim.Audit], [Sim.Entry] and [Sim.Uploads], and prove
// secrets never leak by supplying canary credentials and claim-token
// generators ([WithTokens]). The server side keeps only SHA-256 hashes of API secrets
// and claim tokens, like the real service.
//
// [SeedDemo] fills a simulator with a realistic partner (two connections,
// 120+ EDIFACT deliveries, a few faulty ones, optionally a bulk of small
// ones, and one 15 MiB ORDRSP); the `b2bx sim` command serves it.
package partnersim
