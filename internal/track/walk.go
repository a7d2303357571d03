package track

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// dirSignatures summarises a connection directory's files cheaply, in
// two parts: the deliveries directory (it changes with every stored
// delivery and every rewritten sidecar: both are renames into it), and
// the journals (the upload history, the seen journal and the sent
// copies), each with whether it can be trusted (false when a time is too
// recent: a change in the same clock tick would not show). An upload
// changes only the second, so the deliveries are not walked for it.
func (x *Index) dirSignatures(connDir string) (deliveries, journals string, dOK, jOK bool) {
	var parts []string
	dOK, jOK = true, true
	for i, name := range []string{"deliveries", "uploads.jsonl", "seen.jsonl", "sent"} {
		fi, err := os.Stat(filepath.Join(connDir, name))
		if err != nil {
			parts = append(parts, name+":-")
			continue
		}
		if time.Since(fi.ModTime()) < 2*time.Second { // the file system's clock, not the fake one
			if i == 0 {
				dOK = false
			} else {
				jOK = false
			}
		}
		parts = append(parts, fmt.Sprintf("%s:%d:%d", name, fi.Size(), fi.ModTime().UnixNano()))
	}
	return parts[0], strings.Join(parts[1:], ","), dOK, jOK
}

func statSource(path, conn string) (Source, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Source{}, false
	}
	return Source{Path: path, Conn: conn, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, true
}

func same(a, b Source) bool { return a.Size == b.Size && a.MTime == b.MTime }

// syncConnDir brings one connection directory up to date.
func (x *Index) syncConnDir(ctx context.Context, b *batcher, dir string, rebuilding bool, st *Stats) error {
	dsig, jsig, dOK, jOK := x.dirSignatures(dir)
	sig, sigOK := dsig+","+jsig, dOK && jOK
	if !rebuilding {
		prev, err := x.b.Meta(ctx, sigPrefix+dir)
		if err == nil && prev == sig && sigOK {
			st.Skipped++
			return nil
		}
		if prevD, _, _ := strings.Cut(prev, ","); err == nil && prevD == dsig && dOK {
			return x.syncJournals(ctx, b, dir, dsig, jsig, jOK, st)
		}
	}
	known := map[string]Source{}
	if !rebuilding {
		var err error
		if known, err = x.b.Sources(ctx, dir+string(filepath.Separator)); err != nil {
			return err
		}
	}
	store, err := spool.Open(filepath.Dir(dir))
	if err != nil {
		return err
	}
	conn := ""
	if err := x.syncDeliveries(ctx, b, dir, known, &conn, st); err != nil {
		return err
	}
	// the upload history (with the sent copies) and the seen journal
	if err := x.syncHistory(ctx, b, store, dir, &conn, known, st); err != nil {
		return err
	}
	// sources of this directory that are gone
	for p := range known {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) && !b.visited[p] {
			b.forget(p)
			st.Forgot++
		}
	}
	if err := b.flush(); err != nil {
		return err
	}
	switch {
	case !dOK:
		sig = ""
	case !jOK:
		sig = dsig + "," // trusted deliveries, journals walked again next time
	}
	return writeErr(x.b.SetMeta(ctx, sigPrefix+dir, sig))
}

// journalSources are the recorded sources of a connection directory's
// journals (the files themselves; their parts are read when a journal is
// read whole).
func (x *Index) journalSources(ctx context.Context, dir string) (map[string]Source, error) {
	known := map[string]Source{}
	for _, name := range []string{"uploads.jsonl", "seen.jsonl"} {
		m, err := x.b.Sources(ctx, filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		for p, src := range m {
			known[p] = src
		}
	}
	return known, nil
}

// syncJournals syncs only the journals of a connection directory whose
// deliveries did not change since the last sync (their part of the
// signature, dsig, is the same and trusted): the sources of the
// deliveries are neither read nor listed.
func (x *Index) syncJournals(ctx context.Context, b *batcher, dir, dsig, jsig string, jOK bool, st *Stats) error {
	known, err := x.journalSources(ctx, dir)
	if err != nil {
		return err
	}
	store, err := spool.Open(filepath.Dir(dir))
	if err != nil {
		return err
	}
	conn := ""
	for _, src := range known {
		if src.Conn != "" {
			conn = src.Conn
			break
		}
	}
	if err := x.syncHistory(ctx, b, store, dir, &conn, known, st); err != nil {
		return err
	}
	if err := b.flush(); err != nil {
		return err
	}
	if !jOK {
		jsig = "" // trusted deliveries, journals walked again next time
	}
	return writeErr(x.b.SetMeta(ctx, sigPrefix+dir, dsig+","+jsig))
}

// syncDeliveries reads the sidecars (and payloads) of dir's deliveries
// that are new or changed since known, in parallel, and indexes them in
// directory order; conn is set to the connection they name.
func (x *Index) syncDeliveries(ctx context.Context, b *batcher, dir string, known map[string]Source, conn *string, st *Stats) error {
	// deliveries: one source per sidecar
	ddir := filepath.Join(dir, "deliveries")
	ents, err := os.ReadDir(ddir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("track: read %s: %w", ddir, err)
	}
	var todo []pending
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		p := filepath.Join(ddir, name)
		b.visit(p)
		src, ok := statSource(p, "")
		if !ok {
			continue
		}
		if old, had := known[p]; had && same(old, src) {
			if *conn == "" {
				*conn = old.Conn
			}
			continue
		}
		todo = append(todo, pending{path: p, name: name, src: src})
	}
	// read and parse in parallel, index in directory order
	for len(todo) > 0 {
		chunk := todo[:min(len(todo), parallelChunk)]
		todo = todo[len(chunk):]
		out := readDeliveries(ctx, ddir, chunk)
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, si := range out {
			if si == nil {
				continue // gone meanwhile
			}
			if si.Source.Conn != "" {
				*conn = si.Source.Conn
			}
			if err := b.set(*si); err != nil {
				return err
			}
			st.Read++
		}
	}
	return nil
}

// readDeliveries reads chunk with one worker per CPU (nil: gone meanwhile).
func readDeliveries(ctx context.Context, ddir string, chunk []pending) []*SourceItems {
	out := make([]*SourceItems, len(chunk))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = readDelivery(ctx, ddir, chunk[i])
			}
		}()
	}
	for i := range chunk {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// pending is a sidecar to read.
type pending struct {
	path, name string
	src        Source
}

// parallelChunk is how many deliveries are read in parallel before they
// are indexed.
const parallelChunk = 512

// readDelivery reads one sidecar and its payload; nil when the sidecar is
// gone. A damaged sidecar is indexed by its name with the reason, so find
// shows it.
func readDelivery(ctx context.Context, ddir string, pd pending) *SourceItems {
	raw, err := os.ReadFile(pd.path)
	if err != nil {
		return nil
	}
	src := pd.src
	var m spool.Meta
	if json.Unmarshal(raw, &m) != nil || m.DeliveryAttemptID == "" || spool.SafeName(m.DeliveryAttemptID)+".json" != pd.name {
		it := Item{Kind: KindDelivery, Ref: strings.TrimSuffix(pd.name, ".json"), At: time.Unix(0, src.MTime).UTC(), State: "damaged",
			Status: "the sidecar is damaged", Note: "the sidecar " + pd.path + " does not decode: move it away to fetch the delivery again"}
		it.Keys = []Key{{Kind: KeyID, Value: norm(it.Ref)}}
		return &SourceItems{Source: src, Items: []Item{it}}
	}
	src.Conn = m.ConnectionID
	return &SourceItems{Source: src, Items: deliveryItems(ctx, spool.Stored{Meta: m, Path: filepath.Join(ddir, m.File)})}
}

func (x *Index) syncHistory(ctx context.Context, b *batcher, store *spool.Store, dir string, conn *string, known map[string]Source, st *Stats) error {
	hp := filepath.Join(dir, "uploads.jsonl")
	sentDir := filepath.Join(dir, "sent")
	if src, ok := statSource(hp, ""); ok {
		b.visit(hp)
		// the sent copies count as part of the history's source
		if fi, err := os.Stat(sentDir); err == nil {
			src.MTime ^= fi.ModTime().UnixNano()
		}
		if old, had := known[hp]; had && same(old, src) {
			visitParts(b, hp, known)
			if *conn == "" {
				*conn = old.Conn
			}
		} else {
			c := *conn
			j := journal[spool.UploadRecord]{path: hp,
				// an attempt is its key and bytes (spool.Attempts folds by them)
				id:     func(r *spool.UploadRecord) string { return r.Key + "\x00" + strings.ToLower(r.SHA256) },
				needle: func(id string) []byte { k, _, _ := strings.Cut(id, "\x00"); return jsonField("key", k) },
				conn: func(recs []spool.UploadRecord) string {
					if len(recs) > 0 {
						return recs[0].ConnectionID
					}
					return c
				},
				items: func(recs []spool.UploadRecord) []Item {
					cc := c
					if len(recs) > 0 && recs[0].ConnectionID != "" {
						cc = recs[0].ConnectionID
					}
					return uploadItems(ctx, cc, recs, func(sha string) (string, error) { return store.SentPath(cc, sha) })
				}}
			src.Conn = ""
			if err := syncJournal(ctx, x, b, j, src, known, conn, st); err != nil {
				return err
			}
		}
	} else if err := x.forgetJournal(ctx, b, hp, known, st); err != nil {
		return err
	}
	sp := filepath.Join(dir, "seen.jsonl")
	src, ok := statSource(sp, *conn)
	if !ok {
		return x.forgetJournal(ctx, b, sp, known, st)
	}
	b.visit(sp)
	if old, had := known[sp]; had && same(old, src) {
		visitParts(b, sp, known)
		return nil
	}
	c := *conn
	j := journal[spool.SeenRecord]{path: sp,
		// one part per delivery: a new state re-indexes that delivery's
		id:     func(r *spool.SeenRecord) string { return r.DeliveryAttemptID },
		needle: func(id string) []byte { return jsonField("deliveryAttemptId", id) },
		conn: func(recs []spool.SeenRecord) string {
			if len(recs) > 0 {
				return recs[0].ConnectionID
			}
			return ""
		},
		items: func(recs []spool.SeenRecord) []Item { return seenItems(c, recs) }}
	return syncJournal(ctx, x, b, j, src, known, conn, st)
}
