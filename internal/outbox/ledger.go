package outbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// The ledger (pushed.jsonl): what the push lock's holder has handed to
// the team store, and the journal offset it has read up to.

// ledgerLine is one line of pushed.jsonl.
type ledgerLine struct {
	ID   string `json:"id,omitempty"` // the identity pushed ("" when the entry was skipped)
	Next int64  `json:"next"`         // the journal offset after the entry: the cursor
}

// openLedger reads the ledger (cutting a torn last line: only the lock
// holder writes it) and opens it for appending.
func openLedger(path string) (map[string]bool, int64, *os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("outbox: open %s: %w", path, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		return nil, 0, nil, fmt.Errorf("outbox: read %s: %w", path, err)
	}
	keep := bytes.LastIndexByte(b, '\n') + 1
	if keep < len(b) { // torn tail
		if err := f.Truncate(int64(keep)); err != nil {
			f.Close()
			return nil, 0, nil, fmt.Errorf("outbox: repair %s: %w", path, err)
		}
		b = b[:keep]
	}
	if _, err := f.Seek(int64(keep), 0); err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	pushed := map[string]bool{}
	var cursor int64
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		var ll ledgerLine
		if len(l) == 0 || json.Unmarshal(l, &ll) != nil {
			continue
		}
		if ll.ID != "" {
			pushed[ll.ID] = true
		}
		cursor = max(cursor, ll.Next)
	}
	return pushed, cursor, f, nil
}

// ledgerCursor reads the committed cursor from the ledger's tail without
// the lock.
func ledgerCursor(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	off := max(fi.Size()-4096, 0)
	b := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(b, off)
	var cursor int64
	for _, l := range bytes.Split(b[:n], []byte{'\n'}) {
		var ll ledgerLine
		if json.Unmarshal(l, &ll) == nil {
			cursor = max(cursor, ll.Next)
		}
	}
	return cursor
}

// commit records a pushed identity (or a skip) and moves the cursor.
func (p *Pusher) commit(id string, next int64) error {
	line, _ := json.Marshal(ledgerLine{ID: id, Next: next})
	if _, err := p.ledger.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("outbox: write %s: %w", p.o.ledgerPath(), err)
	}
	if id != "" {
		p.pushed[id] = true
		if p.unsync++; p.unsync >= syncEvery {
			p.syncLedger()
		}
	}
	now := p.clock.Now()
	p.update(func(s *Status) {
		// the cursor and the status move together (update holds p.mu):
		// Drain, woken by any change, never sees the cursor past an
		// entry whose push the status does not count yet
		p.cursor = next
		s.Waiting = len(p.queue)
		if id != "" {
			s.Pushed++
			s.LastPush = now
		}
	})
	return nil
}

func (p *Pusher) syncLedger() {
	if p.unsync > 0 && p.ledger != nil {
		_ = p.ledger.Sync()
		p.unsync = 0
	}
}
