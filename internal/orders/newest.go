package orders

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/jsonline"
)

// The newest accepted payloads the pre-flight compares with (at most
// MaxHistory) are picked from the end of the upload history: some 400
// lines when a partner has 200. They are kept in the connection's store
// directory (newest.jsonl) with the history's mark they were picked at,
// so the next upload reads only the lines appended since (its own last
// two) and picks again from what was kept. It is derived data, like the
// shape cache: rewritten whole (a temporary file renamed, no fsync), and
// picked afresh from the history whenever it does not fit: no file, the
// history rewritten, a line that cannot be read, or the result of an
// attempt whose pending line came before the mark (its place is there).
const newestName = "newest.jsonl"

// pickedAfresh counts the picks made from the history's end (tests).
var pickedAfresh atomic.Int64

// openMax bounds the attempts a kept pick remembers as pending (crashed
// sends never get a result): past it the pick is made afresh.
const openMax = 1000

// picked is the pre-flight's pick: the newest distinct accepted payloads,
// newest first, each with its newest upload.
type picked struct {
	mark spool.HistoryMark
	want []pickedUpload
	open map[string]bool // attempts (key, NUL, SHA-256) pending at the mark
}

// pickedUpload is one payload of the pick: its newest accepted upload,
// with what finds its bytes (SentFile) and when it was sent.
type pickedUpload struct {
	SHA  string    // lower case
	At   time.Time // when the bytes began to leave (or were recorded)
	Conn string
	File string
	Key  string
}

func (p pickedUpload) record() spool.UploadRecord {
	return spool.UploadRecord{Time: p.At, ConnectionID: p.Conn, File: p.File, SHA256: p.SHA, Key: p.Key, Outcome: spool.OutcomeAccepted}
}

func attemptID(r spool.UploadRecord) string { return r.Key + "\x00" + strings.ToLower(r.SHA256) }

// pickNewest picks the newest accepted payloads of conn: from the kept
// pick and the lines appended since when it fits, else from the history's
// end; the pick is kept for the next time.
func pickNewest(store *spool.Store, conn string) (*picked, error) {
	path := filepath.Join(filepath.Dir(store.SeenPath(conn)), newestName)
	if p, ok := readPicked(path); ok {
		recs, mark, ok, err := store.AttemptsAfter(conn, p.mark)
		if err != nil {
			return nil, err
		}
		if ok && p.add(recs) {
			if mark.Size != p.mark.Size {
				p.mark = mark
				p.write(path)
			}
			return p, nil
		}
	}
	pickedAfresh.Add(1)
	p, err := pickFresh(store, conn)
	if err == nil && p.mark.Size > 0 && len(p.open) <= openMax {
		p.write(path)
	}
	return p, err
}

// pickFresh picks from the end of the history: enough lines once they
// hold MaxHistory distinct accepted payloads (an attempt's outcome is its
// result line's, wherever its pending line is, so the lines added to the
// front since the last question are all that need a look).
func pickFresh(store *spool.Store, conn string) (*picked, error) {
	accepted, asked := map[string]bool{}, 0
	enough := func(recs []spool.UploadRecord) bool {
		for _, r := range recs[:len(recs)-asked] {
			if r.Outcome == spool.OutcomeAccepted && r.SHA256 != "" {
				accepted[strings.ToLower(r.SHA256)] = true
			}
		}
		asked = len(recs)
		return len(accepted) >= MaxHistory
	}
	recs, mark, err := store.RecentAttemptsMarked(conn, enough)
	if err != nil {
		return nil, err
	}
	p := &picked{mark: mark, open: map[string]bool{}}
	p.add(recs)
	return p, nil
}

// add picks again with the attempts of recs, lines after the pick's:
// each accepted payload among them comes first, in the order of their
// newest upload. False when recs hold the result of an attempt pending
// in the pick (it belongs where its pending line was: pick afresh).
func (p *picked) add(recs []spool.UploadRecord) bool {
	atts := spool.Attempts(recs)
	for _, a := range atts {
		if a.Outcome != spool.OutcomePending && a.Started.IsZero() && p.open[attemptID(a)] {
			return false
		}
	}
	var first []pickedUpload
	seen := map[string]bool{}
	for i := len(atts) - 1; i >= 0; i-- {
		a := atts[i]
		if a.Outcome == spool.OutcomePending {
			p.open[attemptID(a)] = true
			continue
		}
		sha := strings.ToLower(a.SHA256)
		if a.Outcome != spool.OutcomeAccepted || sha == "" || seen[sha] {
			continue
		}
		seen[sha] = true
		first = append(first, pickedUpload{SHA: sha, At: cmp.Or(a.Started, a.Time), Conn: a.ConnectionID, File: a.File, Key: a.Key})
	}
	for _, u := range p.want {
		if len(first) >= MaxHistory {
			break
		}
		if !seen[u.SHA] {
			first = append(first, u)
		}
	}
	p.want = first[:min(len(first), MaxHistory)]
	return len(p.open) <= openMax
}

// selection is what the verdicts are asked about, and the newest upload
// of each payload.
func (p *picked) selection() (Selection, map[string]spool.UploadRecord) {
	var sel Selection
	newest := make(map[string]spool.UploadRecord, len(p.want))
	for _, u := range p.want {
		newest[u.SHA] = u.record()
		sel.SHAs = append(sel.SHAs, u.SHA)
		if sel.Since.IsZero() || u.At.Before(sel.Since) {
			sel.Since = u.At
		}
	}
	return sel, newest
}

// pickedHead is the first line of newest.jsonl; a line for each payload
// of the pick follows, newest first ({"s", "t", "c", "f", "k"}).
type pickedHead struct {
	Version int      `json:"version"`
	Size    int64    `json:"size"`
	Tail    []byte   `json:"tail"`
	Open    []string `json:"open"`
}

const pickedVersion = 1

func readPicked(path string) (*picked, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	var h pickedHead
	if json.Unmarshal(head, &h) != nil || h.Version != pickedVersion || h.Size <= 0 {
		return nil, false
	}
	p := &picked{mark: spool.HistoryMark{Size: h.Size, Tail: h.Tail}, open: make(map[string]bool, len(h.Open))}
	for _, id := range h.Open {
		p.open[id] = true
	}
	sc := bufio.NewScanner(bytes.NewReader(rest))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var u pickedUpload
		if !jsonline.Fields(sc.Bytes(), func(name []byte, v jsonline.Value) bool {
			var ok bool
			switch string(name) {
			case "s":
				u.SHA, ok = v.String()
			case "t":
				u.At, ok = v.Time()
			case "c":
				u.Conn, ok = v.String()
			case "f":
				u.File, ok = v.String()
			case "k":
				u.Key, ok = v.String()
			}
			return ok
		}) || len(u.SHA) != 64 {
			return nil, false
		}
		p.want = append(p.want, u)
	}
	return p, len(p.want) <= MaxHistory
}

func (p *picked) write(path string) {
	h := pickedHead{Version: pickedVersion, Size: p.mark.Size, Tail: p.mark.Tail}
	for id := range p.open {
		h.Open = append(h.Open, id)
	}
	head, err := json.Marshal(h)
	if err != nil {
		return
	}
	size := len(head) + 1
	for _, u := range p.want {
		size += 64 + len(u.SHA) + len(u.Conn) + len(u.File) + len(u.Key) // escapes aside: one allocation
	}
	b := append(make([]byte, 0, size), head...)
	for _, u := range p.want {
		b = jsonline.AppendString(append(b, "\n{\"s\":"...), u.SHA)
		t, _ := u.At.MarshalJSON()
		b = append(append(b, ",\"t\":"...), t...)
		b = jsonline.AppendString(append(b, ",\"c\":"...), u.Conn)
		b = jsonline.AppendString(append(b, ",\"f\":"...), u.File)
		b = jsonline.AppendString(append(b, ",\"k\":"...), u.Key)
		b = append(b, '}')
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".newest-*") // its own: another b2bx may write one at the same time
	if err != nil {
		return
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
}
