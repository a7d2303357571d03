// Package bulk plans actions on a marked set of mailbox entries or
// uploads, so a person sees what will happen before anything runs (the
// app previews the plan and runs it only on y):
//
//   - ProcessPlan puts marked entries in the worker order (the order the
//     mailbox listed them), one at a time — claim, download, check size,
//     SHA-256 and trailer, store, acknowledge — and stops at the first
//     failure, skipping entries already acknowledged or still under a
//     lease of ours (worker.Runner's Acknowledged and PassesOver answer
//     those); Progress says where a run stands.
//   - UploadPlan says, for each marked upload, whether it is replayed or
//     sent again, under which Idempotency-Key, and which answer to expect
//     (202, 200 replay, 409), numbering new keys across the whole batch.
//
// Everything here is pure: no IO, no clock. It imports no UI code.
package bulk
