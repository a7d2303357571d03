// Package apiclient is the typed client for the B2B exchange Partner API
// (see CONTRACT.md): mailbox listing with cursors, claim with an in-memory
// claim token, verified streaming payload download, acknowledge with replay,
// and ORDERS upload with idempotency keys.
//
// Secrets never leave the process except in the headers that need them: API
// key secrets and claim tokens redact in every formatting path and never
// appear in URLs, logs or errors. Every operation gets a correlation ID sent
// as X-Correlation-ID, logged, and exposed on results and errors. Transient
// failures are retried on the contract's schedule, or after the server's
// Retry-After, but never past the context's deadline or, for calls that
// carry a claim token, the lease; 4xx are never retried. Answers are
// bounded: paging stops after MaxPages or a repeated cursor, unusable
// listed entries are skipped and reported, and a payload is never read
// past its announced size or MaxPayloadSize.
package apiclient
