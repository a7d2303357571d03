package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Found is what EnqueueAll found and queued.
type Found struct {
	Deliveries, Uploads, Seen, Captures int // found
	Queued                              int // of them new to the outbox
}

// EnqueueAll queues everything this machine has under the spool roots
// (every connection's deliveries, upload history and seen journal) and
// the capture files (*.http) in captureDirs, skipping what the outbox
// already queued or pushed in the same state: run twice, the second run
// queues nothing. Missing roots and directories are skipped.
func (o *Outbox) EnqueueAll(ctx context.Context, roots, captureDirs []string) (Found, error) {
	var f Found
	known, err := o.known()
	if err != nil {
		return f, err
	}
	add := func(e Entry) {
		if id := e.identity(); id != "" && !known[id] {
			known[id] = true
			o.Enqueue(e)
			f.Queued++
		}
	}
	seen := map[string]bool{}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		if err := enqueueRoot(ctx, abs, &f, add); err != nil {
			return f, err
		}
	}
	for _, dir := range captureDirs {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return f, fmt.Errorf("outbox: captures %s: %w", dir, err)
		}
		for _, e := range ents { // ReadDir sorts by name: the capture order
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".http") {
				f.Captures++
				add(CaptureEntry(filepath.Join(dir, e.Name())))
			}
		}
	}
	return f, ctx.Err()
}

// enqueueRoot queues one spool root's connections, in name order.
func enqueueRoot(ctx context.Context, root string, f *Found, add func(Entry)) error {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("outbox: spool %s: %w", root, err)
	}
	s, err := spool.Open(root)
	if err != nil {
		return err
	}
	for _, d := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, d.Name())
		conn := connectionOf(dir)
		if conn == "" || spool.SafeName(conn) != d.Name() {
			continue // not a connection's directory (webhook-captures, ...)
		}
		if exists(filepath.Join(dir, "deliveries")) {
			list, err := s.List(conn)
			if err != nil {
				return err
			}
			for i := range list {
				f.Deliveries++
				add(DeliveryEntry(root, &list[i]))
			}
		}
		hist, err := s.Uploads(conn)
		if err != nil {
			return err
		}
		for i := range hist {
			f.Uploads++
			add(Entry{Kind: KindUpload, Root: root, Conn: conn, Upload: &hist[i]})
		}
		seenRecs, err := s.Seen(conn)
		if err != nil {
			return err
		}
		for i := range seenRecs {
			f.Seen++
			add(Entry{Kind: KindSeen, Root: root, Conn: conn, Seen: &seenRecs[i]})
		}
	}
	return nil
}

// connectionOf finds the connection ID a spool directory belongs to:
// its name when it is a plain one, else the ID its files record.
func connectionOf(dir string) string {
	name := filepath.Base(dir)
	if !strings.HasPrefix(name, "~") {
		if hasSpoolFiles(dir) {
			return name
		}
		return ""
	}
	var probe struct {
		ConnectionID string `json:"connectionId"`
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "deliveries")); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				if b, err := os.ReadFile(filepath.Join(dir, "deliveries", e.Name())); err == nil && json.Unmarshal(b, &probe) == nil && probe.ConnectionID != "" {
					return probe.ConnectionID
				}
			}
		}
	}
	for _, j := range []string{"uploads.jsonl", "seen.jsonl"} {
		if b, err := os.ReadFile(filepath.Join(dir, j)); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if json.Unmarshal([]byte(first), &probe) == nil && probe.ConnectionID != "" {
				return probe.ConnectionID
			}
		}
	}
	return ""
}

func hasSpoolFiles(dir string) bool {
	for _, n := range []string{"deliveries", "uploads.jsonl", "seen.jsonl"} {
		if exists(filepath.Join(dir, n)) {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// known is every identity the journal holds and the ledger pushed.
func (o *Outbox) known() (map[string]bool, error) {
	known := map[string]bool{}
	b, err := os.ReadFile(o.ledgerPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("outbox: read %s: %w", o.ledgerPath(), err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		var ll ledgerLine
		if json.Unmarshal([]byte(l), &ll) == nil && ll.ID != "" {
			known[ll.ID] = true
		}
	}
	j, err := o.readFrom(0)
	if err != nil {
		return nil, err
	}
	es, _, _ := readEntries(j, 0)
	for i := range es {
		if id := es[i].e.identity(); id != "" {
			known[id] = true
		}
	}
	return known, nil
}
