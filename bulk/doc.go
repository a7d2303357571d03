// Package bulk plans the processing of a marked set of mailbox entries,
// so a person sees what will happen before anything runs (the app
// previews the plan and runs it only on y): ProcessPlan puts marked
// entries in the worker order (the order the mailbox listed them), one
// at a time — claim, download, check size, SHA-256 and trailer, store,
// acknowledge — and stops at the first failure, skipping entries already
// acknowledged or still under a lease of ours (worker.Runner's
// Acknowledged and PassesOver answer those).
//
// Everything here is pure: no IO, no clock. It imports no UI code. The
// plans for marked uploads (replay or resend, and sending them) are in
// internal/orders with the rest of what concerns an ORDERS we sent.
package bulk
