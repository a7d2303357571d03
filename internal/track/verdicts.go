package track

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/buildinfo"
	"github.com/nutrab2b/b2bx/internal/jsonline"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// The verdict cache. Before every upload the pre-flight asks what the
// partner said of the connection's newest accepted payloads
// (orders.LoadHistoryWith, up to orders.MaxHistory of them): reading the
// conversations of 200 uploads from the index and linking them is most of
// an upload's own work, although between two uploads almost none of them
// changed. So the index keeps each payload's verdict with the
// conversations it was read from (its uploads' KeyConv values), and the
// marks of the index it was computed at: the highest item id (items are
// never updated and their ids never reused, so every item added since has
// a higher one) and the highest entry of track_gone, where SQLite logs the
// conversations of every item removed (a replaced delivery or upload is
// one removed and one added). A kept verdict is used again only when no
// item added or removed since belongs to one of its conversations and no
// upload of its bytes was added, and only by the binary that computed it
// (buildinfo.ID: another b2bx may link differently). Everything else is
// computed as before (VerdictsOf over LinkedFor) and kept for next time.
//
// An answer links only within the conversation its reference names,
// which is one of the conversations of every upload it may answer, so a
// payload's verdict depends on nothing outside its conversations: the
// property test of this file checks that, after every step of random
// histories, the kept verdicts equal fresh ones.

// verdictPrefix + connection ID names the cache of a connection in
// track_meta (Reset empties it with the rest).
const verdictPrefix = "verdicts:"

// verdictCache is one connection's verdicts. It is stored as lines: the
// marks ({"rule","item","gone"}), then one verdict a line ({"s": SHA-256,
// "r", "c", "v": conversations}), read without reflection (jsonline).
type verdictCache struct {
	Rule string                 `json:"rule"` // buildinfo.ID of the b2bx that computed them
	Item int64                  `json:"item"` // the highest item id then
	Gone int64                  `json:"gone"` // the highest track_gone entry then
	Of   map[string]keptVerdict `json:"-"`    // by SHA-256, lower case
}

type keptVerdict struct {
	orders.Verdict
	Convs []string // the conversations of its uploads
}

// encode is the stored form of c.
func (c verdictCache) encode() []byte {
	b, _ := json.Marshal(c) // marks only: strings and numbers
	for h, v := range c.Of {
		b = append(b, "\n{\"s\":"...)
		b = jsonline.AppendString(b, h)
		b = append(b, ",\"r\":"...)
		b = strconv.AppendBool(b, v.Rejected)
		b = append(b, ",\"c\":"...)
		b = strconv.AppendBool(b, v.Contrl)
		b = append(b, ",\"v\":["...)
		for i, cv := range v.Convs {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonline.AppendString(b, cv)
		}
		b = append(b, "]}"...)
	}
	return b
}

// decodeVerdictCache reads what encode wrote; false for anything else.
func decodeVerdictCache(data string) (verdictCache, bool) {
	head, rest, _ := strings.Cut(data, "\n")
	var c verdictCache
	if json.Unmarshal([]byte(head), &c) != nil {
		return c, false
	}
	c.Of = map[string]keptVerdict{}
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		var h string
		var v keptVerdict
		if !jsonline.Fields([]byte(line), func(name []byte, val jsonline.Value) bool {
			var ok bool
			switch string(name) {
			case "s":
				h, ok = val.String()
			case "r":
				v.Rejected, ok = val.Bool()
			case "c":
				v.Contrl, ok = val.Bool()
			case "v":
				v.Convs, ok = val.Strings()
			}
			return ok
		}) || h == "" {
			return c, false // not this b2bx's line: computed again
		}
		c.Of[h] = v
	}
	return c, true
}

// verdictMarks are where the index stands: the highest item id and
// track_gone entry ever given (sqlite_sequence: never lower after a
// removal), the lowest track_gone entry kept, and the connection's cache.
type verdictMarks struct {
	item, gone, floor int64
	cache             string
}

// verdictStats counts, for tests, the verdicts Verdicts answered from
// the cache and computed.
var verdictStats struct{ kept, computed int }

// Verdicts answers orders.VerdictLoader's question for connection conn
// from this index: kept verdicts where nothing they depend on changed,
// fresh ones (VerdictsOf over LinkedFor) for the rest, which are kept for
// the next run. Sync conn first. A team store's index and an index that
// cannot be written compute every verdict.
func (x *Index) Verdicts(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (map[string]orders.Verdict, error) {
	shas := make([]string, 0, len(sel.SHAs))
	for _, h := range sel.SHAs {
		if h != "" {
			shas = append(shas, strings.ToLower(h))
		}
	}
	sel.SHAs = shas
	sq, ok := x.raw.(*SQLite)
	rule := buildinfo.ID()
	if !ok || x.team || rule == "" {
		l, err := x.LinkedFor(ctx, store, conn, &sel)
		if err != nil {
			return nil, err
		}
		return orders.VerdictsOf(l, shas), nil
	}
	marks, err := sq.verdictMarks(ctx, conn)
	if err != nil {
		return nil, err
	}
	kept, err := sq.keptVerdicts(ctx, conn, marks, rule)
	if err != nil {
		return nil, err
	}
	out := make(map[string]orders.Verdict, len(shas))
	next := verdictCache{Rule: rule, Item: marks.item, Gone: marks.gone, Of: make(map[string]keptVerdict, len(shas))}
	var missing []string
	for _, h := range shas {
		if v, ok := kept[h]; ok {
			out[h], next.Of[h] = v.Verdict, v
			verdictStats.kept++
		} else {
			missing = append(missing, h)
		}
	}
	if len(missing) > 0 {
		l, picked, fromItems, err := x.selected(ctx, store, conn, orders.Selection{SHAs: missing, Since: sel.Since})
		if err != nil {
			return nil, err
		}
		fresh := orders.VerdictsOf(l, missing)
		convs := map[string][]string{}
		seen := map[string]bool{}
		for i := range picked {
			d, _ := picked[i].upload()
			h := strings.ToLower(d.SHA256)
			for _, k := range picked[i].Keys {
				if k.Kind == KeyConv && !seen[h+"\x00"+k.Value] {
					seen[h+"\x00"+k.Value] = true
					convs[h] = append(convs[h], k.Value)
				}
			}
		}
		for _, h := range missing {
			out[h] = fresh[h]
			verdictStats.computed++
			if fromItems { // the store's history is not what the marks follow
				next.Of[h] = keptVerdict{Verdict: fresh[h], Convs: convs[h]}
			}
		}
	}
	if len(missing) > 0 || len(kept) != len(next.Of) || marks.cache == "" {
		sq.keepVerdicts(ctx, conn, next) // best effort: a cache that cannot be written is computed again
	}
	return out, ctx.Err()
}

// verdictMarks reads where the index stands and conn's cache.
func (s *SQLite) verdictMarks(ctx context.Context, conn string) (verdictMarks, error) {
	var m verdictMarks
	err := s.queryRow(ctx, `SELECT
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'track_items'), 0),
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'track_gone'), 0),
		COALESCE((SELECT MIN(seq) FROM track_gone), 0),
		COALESCE((SELECT value FROM track_meta WHERE name = ?), '')`, verdictPrefix+conn).Scan(&m.item, &m.gone, &m.floor, &m.cache)
	return m, classify(err)
}

// keptVerdicts are the verdicts of conn's cache that still hold at marks
// (nil when there are none, or the cache is another binary's, or the log
// of removals no longer reaches back to it).
func (s *SQLite) keptVerdicts(ctx context.Context, conn string, marks verdictMarks, rule string) (map[string]keptVerdict, error) {
	if marks.cache == "" {
		return nil, nil
	}
	c, ok := decodeVerdictCache(marks.cache)
	if !ok || c.Rule != rule || c.Item > marks.item || c.Gone > marks.gone || marks.floor > c.Gone+1 || len(c.Of) == 0 {
		return nil, nil
	}
	changed := map[string]bool{}
	bytes := map[string]bool{} // SHA-256 of the uploads added
	rows, err := s.query(ctx, `SELECT kind, convs, detail FROM track_items WHERE id > ? AND conn = ?`, c.Item, conn)
	if err != nil {
		return nil, classify(err)
	}
	for rows.Next() {
		var kind, convs, detail string
		if err := rows.Scan(&kind, &convs, &detail); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		addChanged(changed, convs)
		if Kind(kind) == KindUpload {
			it := Item{Kind: KindUpload, Detail: detail}
			if d, ok := it.upload(); ok {
				bytes[strings.ToLower(d.SHA256)] = true
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	rows, err = s.query(ctx, `SELECT convs FROM track_gone WHERE seq > ? AND conn = ?`, c.Gone, conn)
	if err != nil {
		return nil, classify(err)
	}
	for rows.Next() {
		var convs string
		if err := rows.Scan(&convs); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		addChanged(changed, convs)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	out := make(map[string]keptVerdict, len(c.Of))
next:
	for h, v := range c.Of {
		if bytes[h] {
			continue
		}
		for _, cv := range v.Convs {
			if changed[cv] {
				continue next
			}
		}
		out[h] = v
	}
	return out, nil
}

// addChanged adds the conversations of an item's convs column.
func addChanged(changed map[string]bool, convs string) {
	var cs []string
	_ = json.Unmarshal([]byte(convs), &cs)
	for _, c := range cs {
		changed[c] = true
	}
}

// keepWait bounds how long keeping the verdicts waits for another
// process's write: the cache is not worth holding up an upload.
const keepWait = 100 // milliseconds

// keepVerdicts writes conn's cache, unless another process holds the
// write lock longer than keepWait or the index cannot be written.
func (s *SQLite) keepVerdicts(ctx context.Context, conn string, c verdictCache) {
	b := c.encode()
	sc, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer sc.Close()
	var wait int
	if sc.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&wait) != nil {
		return
	}
	if _, err := sc.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(keepWait)); err != nil {
		return
	}
	defer sc.ExecContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = `+strconv.Itoa(wait))
	tx, err := sc.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	name := verdictPrefix + conn
	if _, err := tx.ExecContext(ctx, `DELETE FROM track_meta WHERE name = ?`, name); err != nil {
		return
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO track_meta (name, value) VALUES (?, ?)`, name, string(b)); err != nil {
		return
	}
	_ = tx.Commit()
}
