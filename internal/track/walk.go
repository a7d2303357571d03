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

// dirSignature summarises a connection directory's files cheaply: the
// modification times and sizes of the deliveries directory (it changes
// with every stored delivery and every rewritten sidecar: both are
// renames into it), the upload history, the seen journal and the sent
// copies. ok is false when a time is too recent to trust (a change in the
// same clock tick would not show).
func (x *Index) dirSignature(connDir string) (sig string, ok bool) {
	var parts []string
	ok = true
	for _, name := range []string{"deliveries", "uploads.jsonl", "seen.jsonl", "sent"} {
		fi, err := os.Stat(filepath.Join(connDir, name))
		if err != nil {
			parts = append(parts, name+":-")
			continue
		}
		if time.Since(fi.ModTime()) < 2*time.Second { // the file system's clock, not the fake one
			ok = false
		}
		parts = append(parts, fmt.Sprintf("%s:%d:%d", name, fi.Size(), fi.ModTime().UnixNano()))
	}
	return strings.Join(parts, ","), ok
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
	sig, sigOK := x.dirSignature(dir)
	if !rebuilding {
		if prev, err := x.b.Meta(ctx, sigPrefix+dir); err == nil && prev == sig && sigOK {
			st.Skipped++
			return nil
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
	if !sigOK {
		sig = ""
	}
	return writeErr(x.b.SetMeta(ctx, sigPrefix+dir, sig))
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
	src, ok := statSource(hp, "")
	if ok {
		b.visit(hp)
		// the sent copies count as part of the history's source
		if fi, err := os.Stat(sentDir); err == nil {
			src.MTime ^= fi.ModTime().UnixNano()
		}
		if old, had := known[hp]; !had || !same(old, src) {
			raw, err := os.ReadFile(hp)
			if err != nil {
				return fmt.Errorf("track: read %s: %w", hp, err)
			}
			var hist []spool.UploadRecord
			for _, l := range strings.Split(string(raw), "\n") {
				var r spool.UploadRecord
				if strings.TrimSpace(l) != "" && json.Unmarshal([]byte(l), &r) == nil {
					hist = append(hist, r)
				}
			}
			c := *conn
			if len(hist) > 0 {
				c = hist[0].ConnectionID
				*conn = c
			}
			src.Conn = c
			items := uploadItems(ctx, c, hist, func(sha string) (string, error) { return store.SentPath(c, sha) })
			if err := b.set(SourceItems{Source: src, Items: items}); err != nil {
				return err
			}
			st.Read++
		}
	}
	sp := filepath.Join(dir, "seen.jsonl")
	if src, ok := statSource(sp, *conn); ok {
		b.visit(sp)
		if old, had := known[sp]; !had || !same(old, src) {
			recs, err := spool.ReadSeen(sp)
			if err != nil {
				return err
			}
			if src.Conn == "" && len(recs) > 0 {
				src.Conn = recs[0].ConnectionID
			}
			if err := b.set(SourceItems{Source: src, Items: seenItems(src.Conn, recs)}); err != nil {
				return err
			}
			st.Read++
		}
	}
	return nil
}
