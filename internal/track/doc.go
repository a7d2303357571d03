// Package track is b2bx's tracking index: every stored delivery, upload,
// answer, mailbox state and webhook event capture of this machine, by the
// business keys a support ticket names (order number, interchange control
// reference, GLN, idempotency key, IDs), so one order's conversation can
// be found across every connection and told as one timeline.
//
// The files of the spool stay the source of truth. The index is derived:
// an SQLite database (pure Go, modernc.org/sqlite) in WAL mode with a busy
// timeout, at <data dir>/.index/track.db, with a schema version and
// migrations. It is rebuilt from the files when it is missing, corrupt,
// of another schema, or marked stale after a failed write (a full disk),
// and brought up to date incrementally: every file it indexed is recorded
// with its size and modification time, so a sync re-reads only what
// changed. The queries sit behind the small [Backend] interface with
// portable SQL and parameters only, so a shared PostgreSQL index can be
// added later without touching the callers.
//
// Callers: Open, then Sync (cheap when nothing changed), then Find,
// Timeline or Overdue. The CLI and the app index after every store,
// upload and answer in the background (Index.SyncConn), never on the
// download path: indexing failures are reported, never fatal.
package track
