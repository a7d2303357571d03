package track

import (
	"context"
	"time"
)

// Source is one file the index read, with what it looked like then: a
// file whose size or modification time changed is read again.
type Source struct {
	Path string // absolute path
	Conn string // connection ID ("" for a capture)
	Size int64  // bytes; a journal's part (journal.go) has minus its record count

	MTime int64 // modification time, Unix nanoseconds
}

// SourceItems are the items read from one source; they replace whatever
// the index held for it.
type SourceItems struct {
	Source Source
	Items  []Item
}

// Batch is one transaction of changes.
type Batch struct {
	Set    []SourceItems
	Forget []string // source paths whose files are gone
	// Fresh: the sources of Set are not in the index (a rebuild after
	// Reset), so nothing needs replacing.
	Fresh bool
}

// Match selects items by key. Value is normalised (see norm); Kinds empty
// means every kind but KeyConv. Prefix matches every value starting with
// Value.
type Match struct {
	Value  string
	Kinds  []KeyKind
	Prefix bool
	Type   string    // only items of this message/event type (type: queries)
	Since  time.Time // only items at or after; zero: all
	Conn   string    // only this connection ID; "": all
	Limit  int       // newest first; 0: DefaultLimit
}

// Backend is what the tracking index needs from a database. SQLite is the
// one built; the SQL is kept portable (parameters only, no upserts, no
// LIKE, no engine-specific functions in queries, INSERT … RETURNING which
// both engines have) so a shared PostgreSQL index can implement it later:
// its DDL differs only in BIGSERIAL for "INTEGER PRIMARY KEY
// AUTOINCREMENT" and a plain primary key for "WITHOUT ROWID", and its
// driver wants $1, $2 … where SQLite takes ?.
type Backend interface {
	// Apply runs a batch in one write transaction.
	Apply(ctx context.Context, b Batch) error
	// Sources returns the recorded sources whose path starts with
	// prefix, by path.
	Sources(ctx context.Context, prefix string) (map[string]Source, error)
	// Match returns the items carrying a key, newest first.
	Match(ctx context.Context, m Match) ([]Item, error)
	// ByConv returns the items belonging to any of the conversations.
	// Every item a Backend returns carries its conversation keys.
	ByConv(ctx context.Context, convs []string) ([]Item, error)
	// ByKind returns the items of one kind at or after since.
	ByKind(ctx context.Context, kind Kind, since time.Time) ([]Item, error)
	// Meta reads a value of the index's own bookkeeping ("" when unset);
	// SetMeta writes one.
	Meta(ctx context.Context, name string) (string, error)
	SetMeta(ctx context.Context, name, value string) error
	// Metas returns every bookkeeping value whose name starts with prefix.
	Metas(ctx context.Context, prefix string) (map[string]string, error)
	// Reset empties the index (a rebuild follows).
	Reset(ctx context.Context) error
	// Counts reports how many sources (files: not the parts of journals,
	// whose Size is negative), items and keys are indexed.
	Counts(ctx context.Context) (sources, items, keys int64, err error)
	Close() error
}

// DefaultLimit bounds how many matching items one query reads.
const DefaultLimit = 2000
