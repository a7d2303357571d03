package track

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// Sources implements Backend.
func (s *sqlStore) Sources(ctx context.Context, prefix string) (map[string]Source, error) {
	rows, err := s.query(ctx, `SELECT path, conn, size, mtime FROM track_sources WHERE path >= ? AND path < ?`, prefix, prefix+"\U0010FFFF")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[string]Source{}
	for rows.Next() {
		var src Source
		if err := rows.Scan(&src.Path, &src.Conn, &src.Size, &src.MTime); err != nil {
			return nil, classify(err)
		}
		out[src.Path] = src
	}
	s.count(&s.stats.SourcesRead, len(out))
	return out, classify(rows.Err())
}

const itemCols = `i.id, i.conn, i.kind, i.ref, i.type, i.at, i.state, i.status, i.note, i.detail, i.convs, i.part, i.who, s.path`

func scanItems(rows *sql.Rows) ([]Item, error) {
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var it Item
		var kind, convs, by string
		var at int64
		if err := rows.Scan(&it.ID, &it.Conn, &kind, &it.Ref, &it.Type, &at, &it.State, &it.Status, &it.Note, &it.Detail, &convs, &it.Part, &by, &it.Path); err != nil {
			return nil, classify(err)
		}
		it.Kind, it.At = Kind(kind), time.UnixMilli(at).UTC()
		if by != "" {
			_ = json.Unmarshal([]byte(by), &it.By)
		}
		var cs []string
		_ = json.Unmarshal([]byte(convs), &cs)
		for _, c := range cs {
			it.Keys = append(it.Keys, Key{Kind: KeyConv, Value: c})
		}
		out = append(out, it)
	}
	return out, classify(rows.Err())
}

// Match implements Backend. The value is compared by equality or as a
// range (prefix), never with LIKE, so '%', '_' and '*' in it are plain
// characters.
func (s *sqlStore) Match(ctx context.Context, m Match) ([]Item, error) {
	if m.Value == "" {
		return s.matchType(ctx, m)
	}
	where, args := matchWhere(m)
	limit := m.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	args = append(args, limit)
	// walk the value index newest first and stop at the limit, and read
	// the items named in the same statement (one snapshot: see ByValues)
	s.count(&s.stats.KeyQueries)
	s.count(&s.stats.ItemQueries)
	rows, err := s.query(ctx, `SELECT `+itemCols+` FROM (SELECT k.item, k.at FROM track_keys k JOIN track_items i ON i.id = k.item
		WHERE `+strings.Join(where, " AND ")+` ORDER BY k.at DESC, k.item DESC LIMIT ?) m
		JOIN track_items i ON i.id = m.item JOIN track_sources s ON s.id = i.source ORDER BY m.at DESC, m.item DESC`, args...)
	if err != nil {
		return nil, classify(err)
	}
	items, err := scanItems(rows)
	if err != nil {
		return nil, err
	}
	out := items[:0]
	seen := map[int64]bool{}
	for _, it := range items {
		if !seen[it.ID] { // an item named by several of its keys
			seen[it.ID] = true
			out = append(out, it)
		}
	}
	s.count(&s.stats.ItemsRead, len(out))
	return out, nil
}

// matchWhere is the condition of a Match with a value, and its parameters.
func matchWhere(m Match) (where []string, args []any) {
	if m.Prefix {
		where = append(where, `k.value >= ? AND k.value < ?`)
		args = append(args, m.Value, m.Value+"\U0010FFFF")
	} else {
		where = append(where, `k.value = ?`)
		args = append(args, m.Value)
	}
	if len(m.Kinds) > 0 {
		ph := make([]string, len(m.Kinds))
		for i, k := range m.Kinds {
			ph[i] = "?"
			args = append(args, string(k))
		}
		where = append(where, `k.kind IN (`+strings.Join(ph, ", ")+`)`)
	} else {
		where = append(where, `k.kind <> ?`)
		args = append(args, string(KeyConv))
	}
	if !m.Since.IsZero() {
		where = append(where, `k.at >= ?`)
		args = append(args, m.Since.Unix())
	}
	if m.Conn != "" {
		where = append(where, `i.conn = ?`)
		args = append(args, m.Conn)
	}
	if m.Type != "" {
		where = append(where, `i.type = ?`)
		args = append(args, m.Type)
	}
	return where, args
}

// matchType lists the items of one type (a type: query without value).
func (s *sqlStore) matchType(ctx context.Context, m Match) ([]Item, error) {
	where, args := []string{`i.type = ?`, `i.at >= ?`}, []any{m.Type, m.Since.UnixMilli()}
	if m.Since.IsZero() {
		args[1] = int64(-1 << 62)
	}
	if m.Conn != "" {
		where = append(where, `i.conn = ?`)
		args = append(args, m.Conn)
	}
	limit := m.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	s.count(&s.stats.ItemQueries)
	rows, err := s.query(ctx, `SELECT `+itemCols+` FROM track_items i JOIN track_sources s ON s.id = i.source
		WHERE `+strings.Join(where, " AND ")+` ORDER BY i.at DESC, i.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, classify(err)
	}
	items, err := scanItems(rows)
	s.count(&s.stats.ItemsRead, len(items))
	return items, err
}

// inChunks runs fn over vals in slices small enough for any engine's
// parameter limit.
func inChunks[T any](vals []T, fn func(ph string, args []any) error) error {
	const chunk = 500
	for len(vals) > 0 {
		n := min(chunk, len(vals))
		ph := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
		args := make([]any, n)
		for i, v := range vals[:n] {
			args[i] = v
		}
		if err := fn(ph, args); err != nil {
			return err
		}
		vals = vals[n:]
	}
	return nil
}

// ByConv implements Backend. The keys give the ids (an item carrying
// many of the conversations is named once per key, read once).
func (s *sqlStore) ByConv(ctx context.Context, convs []string) ([]Item, error) {
	return s.ByValues(ctx, KeyConv, convs)
}

// ByValues implements valuesBackend: the items carrying a key of kind
// with one of the (normalised) values, each once, in chunks of IN lists
// over the value index: a few queries for hundreds of values, where
// ByKind would read every item of a kind.
func (s *sqlStore) ByValues(ctx context.Context, kind KeyKind, values []string) ([]Item, error) {
	// One statement reads the keys and their items: one snapshot. Read
	// in two, a writer replacing a source's items in between (the
	// index's update after a download beside a tab's sync of the same
	// delivery) left the keys' item ids pointing at items just deleted,
	// and the delivery was missing from the answer (it showed as "not
	// downloaded yet" until the next reload).
	seen := map[int64]bool{}
	var out []Item
	err := inChunks(values, func(ph string, args []any) error {
		s.count(&s.stats.KeyQueries)
		s.count(&s.stats.ItemQueries)
		rows, err := s.query(ctx, `SELECT `+itemCols+` FROM track_items i JOIN track_sources s ON s.id = i.source
			WHERE i.id IN (SELECT k.item FROM track_keys k WHERE k.value IN (`+ph+`) AND k.kind = ?) ORDER BY i.id`, append(args, string(kind))...)
		if err != nil {
			return classify(err)
		}
		items, err := scanItems(rows)
		s.count(&s.stats.ItemsRead, len(items))
		for _, it := range items {
			if !seen[it.ID] {
				seen[it.ID] = true
				out = append(out, it)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ByKind implements Backend.
func (s *sqlStore) ByKind(ctx context.Context, kind Kind, since time.Time) ([]Item, error) {
	rows, err := s.query(ctx, `SELECT `+itemCols+` FROM track_items i JOIN track_sources s ON s.id = i.source
		WHERE i.kind = ? AND i.at >= ? ORDER BY i.at, i.id`, string(kind), since.UnixMilli())
	if err != nil {
		return nil, classify(err)
	}
	s.count(&s.stats.ItemQueries)
	items, err := scanItems(rows)
	s.count(&s.stats.ItemsRead, len(items))
	return items, err
}
