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
	tx, err := s.begin(ctx)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback()
	w := writer{ctx: ctx, tx: tx}
	w.run(b)
	if w.err != nil {
		return classify(w.err)
	}
	return classify(tx.Commit())
}

// run writes batch b.
func (w *writer) run(b Batch) {
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
}

// countOrphans adds the batch's left-behind keys to the count kept in
// track_meta and sweeps them all once there are orphanSweep.
func (w *writer) countOrphans() {
	if w.err != nil || w.orphaned == 0 {
		return
	}
	var v string
	if err := w.tx.queryRow(w.ctx, `SELECT value FROM track_meta WHERE name = ?`, "orphans").Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
		w.err = err
		return
	}
	n, _ := strconv.Atoi(v)
	n += w.orphaned
	if n >= orphanSweep {
		w.exec(`DELETE FROM track_keys WHERE NOT EXISTS (SELECT 1 FROM track_items i WHERE i.id = track_keys.item)`)
		// the log of removed items keeps the newest goneKeep: a verdict
		// kept before those is computed again (verdicts.go)
		w.exec(`DELETE FROM track_gone WHERE seq <= (SELECT MAX(seq) FROM track_gone) - ?`, goneKeep)
		n = 0
	}
	w.exec(`DELETE FROM track_meta WHERE name = ?`, "orphans")
	w.exec(`INSERT INTO track_meta (name, value) VALUES (?, ?)`, "orphans", strconv.Itoa(n))
}

// goneKeep is how many removals track_gone keeps when it is swept.
const goneKeep = 20000

// writer runs the statements of one batch, keeping the first error.
type writer struct {
	ctx context.Context
	tx  *sqlTx
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
	r, err := w.tx.exec(w.ctx, q, args...)
	w.err = err
	return r
}

func (w *writer) forget(path string) {
	w.flushKeys() // the keys queued so far are written before any item goes
	if w.err != nil {
		return
	}
	rows, err := w.tx.query(w.ctx, `SELECT i.id FROM track_items i JOIN track_sources s ON s.id = i.source WHERE s.path = ?`, path)
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
	if w.tx.s.pg && len(ids) > 0 {
		// PostgreSQL keeps an index of keys by item: they go with it
		// (no orphan count in track_meta for concurrent writers to share)
		w.err = inChunks(ids, func(ph string, args []any) error {
			_, err := w.tx.exec(w.ctx, `DELETE FROM track_keys WHERE item IN (`+ph+`)`, args...)
			return err
		})
	} else {
		w.orphaned += len(ids)
	}
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
		if w.insSource, w.err = w.tx.PrepareContext(w.ctx, w.tx.s.bind(w.sourceInsert())); w.err != nil {
			return
		}
		// Exec and the last insert id, not RETURNING through a query:
		// a third of the cost of a row here
		if w.insItem, w.err = w.tx.PrepareContext(w.ctx, w.tx.s.bind(w.itemInsert(itemRows))); w.err != nil {
			return
		}
		if w.insKey, w.err = w.tx.PrepareContext(w.ctx, w.tx.s.bind(`INSERT INTO track_keys (value, at, item, kind) VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", keyRows), ", "))); w.err != nil {
			return
		}
	}
	src, ok := w.insertSource(si.Source)
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

const itemInsert = `INSERT INTO track_items (source, conn, kind, ref, type, at, state, status, note, detail, convs, part, who) VALUES `

// itemCount is how many values one item row has (without the id).
const itemCount = 13

// sourceInsert adds a source: its id by the last insert id (SQLite) or
// RETURNING (PostgreSQL, whose driver has no last insert id).
func (w *writer) sourceInsert() string {
	q := `INSERT INTO track_sources (path, conn, size, mtime) VALUES (?, ?, ?, ?)`
	if w.tx.s.pg {
		q += ` RETURNING id`
	}
	return q
}

// itemInsert adds n items. On PostgreSQL the ids are taken from the
// sequence first and written with the rows (rows of one INSERT need not
// get consecutive ids there).
func (w *writer) itemInsert(n int) string {
	if w.tx.s.pg {
		return `INSERT INTO track_items (id, source, conn, kind, ref, type, at, state, status, note, detail, convs, part, who) VALUES ` + itemValues(n, itemCount+1)
	}
	return itemInsert + itemValues(n, itemCount)
}

// whoJSON is the stored form of an item's author ("" for none).
func whoJSON(it *Item) string {
	if it.By.IsZero() {
		return ""
	}
	return mustJSON(it.By)
}

// insertSource adds src and returns its id.
func (w *writer) insertSource(src Source) (int64, bool) {
	if !w.tx.s.pg {
		return w.insert(w.insSource, src.Path, src.Conn, src.Size, src.MTime)
	}
	if w.err != nil {
		return 0, false
	}
	var id int64
	w.err = w.insSource.QueryRowContext(w.ctx, pgArgs([]any{src.Path, src.Conn, src.Size, src.MTime})...).Scan(&id)
	return id, w.err == nil
}

// nextIDs takes n item ids from PostgreSQL's sequence, in order.
func (w *writer) nextIDs(n int) ([]int64, bool) {
	rows, err := w.tx.QueryContext(w.ctx, `SELECT nextval('track_items_id_seq') FROM generate_series(1, $1::int)`, n)
	if err != nil {
		w.err = err
		return nil, false
	}
	defer rows.Close()
	ids := make([]int64, 0, n)
	for rows.Next() {
		var id int64
		if w.err = rows.Scan(&id); w.err != nil {
			return nil, false
		}
		ids = append(ids, id)
	}
	if w.err = rows.Err(); w.err != nil {
		return nil, false
	}
	return ids, len(ids) == n
}

// insertItems writes items (at most itemRows) in one statement and
// queues their keys. The rows of one INSERT get consecutive ids (the
// write lock is held, AUTOINCREMENT): the last insert id and back.
func (w *writer) insertItems(src int64, items []Item) {
	pg := w.tx.s.pg
	var ids []int64
	if pg {
		var ok bool
		if ids, ok = w.nextIDs(len(items)); !ok {
			return
		}
	}
	args := make([]any, 0, (itemCount+1)*len(items))
	for i := range items {
		it := &items[i]
		if pg {
			args = append(args, ids[i])
		}
		var convs []string
		for _, k := range it.Keys {
			if k.Kind == KeyConv {
				convs = append(convs, k.Value)
			}
		}
		args = append(args, src, it.Conn, string(it.Kind), it.Ref, it.Type, it.At.UnixMilli(), it.State, it.Status, it.Note, it.Detail, mustJSON(convs), it.Part, whoJSON(it))
	}
	st := w.insItem
	if len(items) != itemRows {
		if st = w.insFew[len(items)]; st == nil {
			var err error
			if st, err = w.tx.PrepareContext(w.ctx, w.tx.s.bind(w.itemInsert(len(items)))); err != nil {
				w.err = err
				return
			}
			if w.insFew == nil {
				w.insFew = map[int]*sql.Stmt{}
			}
			w.insFew[len(items)] = st // closed with the transaction
		}
	}
	var last int64
	if pg {
		if w.err == nil {
			_, w.err = st.ExecContext(w.ctx, pgArgs(args)...)
		}
		if w.err != nil {
			return
		}
	} else {
		var ok bool
		if last, ok = w.insert(st, args...); !ok {
			return
		}
	}
	for i, it := range items {
		id := last - int64(len(items)-1-i)
		if pg {
			id = ids[i]
		}
		for n, k := range it.Keys {
			if n == keysPerItem {
				break // bounded (see keysPerItem); a hostile file cannot flood the index
			}
			w.key(k.Value, it.At.Unix(), id, string(k.Kind))
		}
	}
}

func itemValues(n, cols int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + "), "
	return strings.TrimSuffix(strings.Repeat(row, n), ", ")
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
		_, w.err = w.insKey.ExecContext(w.ctx, w.tx.s.args(w.keys)...)
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
	_, w.err = w.tx.exec(w.ctx, `INSERT INTO track_keys (value, at, item, kind) VALUES `+ph, w.keys...)
	w.keys = w.keys[:0]
}
