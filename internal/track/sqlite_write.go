package track

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"modernc.org/sqlite"
)

// Apply implements Backend. A Fresh batch that meets a source already
// there (another process rebuilt at the same time) is run again as a
// replacing one.
func (s *SQLite) Apply(ctx context.Context, b Batch) error {
	err := s.apply(ctx, b)
	var se *sqlite.Error
	if b.Fresh && errors.As(err, &se) && se.Code()&0xff == 19 { // SQLITE_CONSTRAINT
		b.Fresh = false
		err = s.apply(ctx, b)
	}
	return err
}

func (s *SQLite) apply(ctx context.Context, b Batch) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	w := writer{ctx: ctx, tx: tx}
	for _, p := range b.Forget {
		w.forget(p)
	}
	for _, si := range b.Set {
		if !b.Fresh {
			w.forget(si.Source.Path)
		}
		w.set(si)
	}
	w.flushKeys()
	w.countOrphans()
	if w.err != nil {
		return classify(w.err)
	}
	return classify(tx.Commit())
}

// countOrphans adds the batch's left-behind keys to the count kept in
// track_meta and sweeps them all once there are orphanSweep.
func (w *writer) countOrphans() {
	if w.err != nil || w.orphaned == 0 {
		return
	}
	var v string
	if err := w.tx.QueryRowContext(w.ctx, `SELECT value FROM track_meta WHERE name = ?`, "orphans").Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
		w.err = err
		return
	}
	n, _ := strconv.Atoi(v)
	n += w.orphaned
	if n >= orphanSweep {
		w.exec(`DELETE FROM track_keys WHERE NOT EXISTS (SELECT 1 FROM track_items i WHERE i.id = track_keys.item)`)
		n = 0
	}
	w.exec(`DELETE FROM track_meta WHERE name = ?`, "orphans")
	w.exec(`INSERT INTO track_meta (name, value) VALUES (?, ?)`, "orphans", strconv.Itoa(n))
}

// writer runs the statements of one batch, keeping the first error.
type writer struct {
	ctx context.Context
	tx  *sql.Tx
	err error

	insSource, insItem, insKey *sql.Stmt
	// insFew are the INSERTs of fewer than itemRows items, prepared once
	// a batch: most deliveries have one item, and preparing their
	// statement per delivery was a large part of a rebuild.
	insFew map[int]*sql.Stmt
	keys   []any // queued key rows (value, at, item, kind), across sources

	orphaned int // items whose keys were left behind
}

func (w *writer) exec(q string, args ...any) sql.Result {
	if w.err != nil {
		return nil
	}
	r, err := w.tx.ExecContext(w.ctx, q, args...)
	w.err = err
	return r
}

func (w *writer) forget(path string) {
	w.flushKeys() // the keys queued so far are written before any item goes
	if w.err != nil {
		return
	}
	rows, err := w.tx.QueryContext(w.ctx, `SELECT i.id FROM track_items i JOIN track_sources s ON s.id = i.source WHERE s.path = ?`, path)
	if err != nil {
		w.err = err
		return
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if w.err = rows.Scan(&id); w.err != nil {
			rows.Close()
			return
		}
		ids = append(ids, id)
	}
	rows.Close()
	if w.err = rows.Err(); w.err != nil {
		return
	}
	w.orphaned += len(ids)
	if len(ids) > 0 {
		w.exec(`DELETE FROM track_items WHERE source IN (SELECT id FROM track_sources WHERE path = ?)`, path)
	}
	w.exec(`DELETE FROM track_sources WHERE path = ?`, path)
}

func (w *writer) set(si SourceItems) {
	if w.err != nil {
		return
	}
	if w.insItem == nil {
		if w.insSource, w.err = w.tx.PrepareContext(w.ctx, `INSERT INTO track_sources (path, conn, size, mtime) VALUES (?, ?, ?, ?)`); w.err != nil {
			return
		}
		// Exec and the last insert id, not RETURNING through a query:
		// a third of the cost of a row here
		if w.insItem, w.err = w.tx.PrepareContext(w.ctx, itemInsert+itemValues(itemRows)); w.err != nil {
			return
		}
		if w.insKey, w.err = w.tx.PrepareContext(w.ctx, `INSERT INTO track_keys (value, at, item, kind) VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", keyRows), ", ")); w.err != nil {
			return
		}
	}
	src, ok := w.insert(w.insSource, si.Source.Path, si.Source.Conn, si.Source.Size, si.Source.MTime)
	if !ok {
		return
	}
	for items := si.Items; len(items) > 0 && w.err == nil; {
		n := min(len(items), itemRows)
		w.insertItems(src, items[:n])
		items = items[n:]
	}
}

// itemRows is how many items one INSERT writes (a wide delivery has
// many: one statement per item was most of its indexing).
const itemRows = 32

const itemInsert = `INSERT INTO track_items (source, conn, kind, ref, type, at, state, status, note, detail, convs, part) VALUES `

// insertItems writes items (at most itemRows) in one statement and
// queues their keys. The rows of one INSERT get consecutive ids (the
// write lock is held, AUTOINCREMENT): the last insert id and back.
func (w *writer) insertItems(src int64, items []Item) {
	args := make([]any, 0, 12*len(items))
	for _, it := range items {
		var convs []string
		for _, k := range it.Keys {
			if k.Kind == KeyConv {
				convs = append(convs, k.Value)
			}
		}
		args = append(args, src, it.Conn, string(it.Kind), it.Ref, it.Type, it.At.UnixMilli(), it.State, it.Status, it.Note, it.Detail, mustJSON(convs), it.Part)
	}
	st := w.insItem
	if len(items) != itemRows {
		if st = w.insFew[len(items)]; st == nil {
			var err error
			if st, err = w.tx.PrepareContext(w.ctx, itemInsert+itemValues(len(items))); err != nil {
				w.err = err
				return
			}
			if w.insFew == nil {
				w.insFew = map[int]*sql.Stmt{}
			}
			w.insFew[len(items)] = st // closed with the transaction
		}
	}
	last, ok := w.insert(st, args...)
	if !ok {
		return
	}
	for i, it := range items {
		id := last - int64(len(items)-1-i)
		for n, k := range it.Keys {
			if n == keysPerItem {
				break // bounded (see keysPerItem); a hostile file cannot flood the index
			}
			w.key(k.Value, it.At.Unix(), id, string(k.Kind))
		}
	}
}

func itemValues(n int) string {
	return strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), ", n), ", ")
}

// keyRows is how many keys one INSERT writes.
const keyRows = 64

func (w *writer) insert(st *sql.Stmt, args ...any) (int64, bool) {
	if w.err != nil {
		return 0, false
	}
	r, err := st.ExecContext(w.ctx, args...)
	if err != nil {
		w.err = err
		return 0, false
	}
	id, err := r.LastInsertId()
	w.err = err
	return id, err == nil
}

// key queues one key row; full rows go out keyRows at a time.
func (w *writer) key(value string, at, item int64, kind string) {
	w.keys = append(w.keys, value, at, item, kind)
	if len(w.keys) == 4*keyRows && w.err == nil {
		_, w.err = w.insKey.ExecContext(w.ctx, w.keys...)
		w.keys = w.keys[:0]
	}
}

// flushKeys writes the queued keys.
func (w *writer) flushKeys() {
	if w.err != nil || len(w.keys) == 0 {
		w.keys = w.keys[:0]
		return
	}
	ph := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", len(w.keys)/4), ", ")
	_, w.err = w.tx.ExecContext(w.ctx, `INSERT INTO track_keys (value, at, item, kind) VALUES `+ph, w.keys...)
	w.keys = w.keys[:0]
}
