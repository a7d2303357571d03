package answers

import (
	"slices"
	"time"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ClockSkew is how much later than an answer an upload may be recorded
// and still be the one it answers, when no upload with that reference
// was sent before the answer and the upload's time is this machine's
// (no ServerAt): the history then uses the local clock, the mailbox the
// server's.
const ClockSkew = 5 * time.Minute

// Basis says how an answer was linked.
type Basis string

// Link bases.
const (
	ByInterchange Basis = "interchange" // CONTRL: UCI control reference and sender
	ByOrder       Basis = "order"       // ORDRSP/APERAK: a reference equals a BGM number
)

// Link is the upload an answer belongs to.
type Link struct {
	// Upload is the index of the linked upload in the slice given; -1
	// when none matches.
	Upload int   `json:"upload"`
	By     Basis `json:"by,omitempty"`
	// Ref is the value that was looked up: the UCI control reference, or
	// the order number that matched (the first reference when none did).
	Ref string `json:"ref,omitempty"`
	// Candidates is how many distinct uploads matched. More than one
	// means the reference was reused and Upload is the latest sent before
	// the answer (see the package documentation).
	Candidates int `json:"candidates"`
	// Later is how many of the candidates were sent after the linked one
	// (after the answer was created).
	Later int `json:"later,omitempty"`
	// Skewed is true when the linked upload is dated after the answer was
	// created, within the window (DateResolution when the server's clock
	// is known, else ClockSkew): no upload with the reference precedes the
	// answer, and the clocks differ.
	Skewed bool `json:"skewed,omitempty"`
	// Why says why an answer whose reference matched is not linked
	// ("created before every upload with that order number"); "" when it
	// is linked or nothing matched. Terminal-safe.
	Why string `json:"why,omitempty"`
}

// Linked reports whether the answer belongs to an upload.
func (l Link) Linked() bool { return l.Upload >= 0 }

// Ambiguous reports whether several uploads matched.
func (l Link) Ambiguous() bool { return l.Candidates > 1 }

// Find links one answer to the upload it answers. uploads are one
// connection's accepted uploads, one entry per upload (see Distinct).
func Find(uploads []Upload, a Answer) Link {
	return newFinder(uploads).find(a)
}

// finder holds the uploads by CONTRL key and by BGM number.
type finder struct {
	uploads []Upload
	byRef   map[string][]int // sender "\x00" control reference
	byBGM   map[string][]int
	// answered marks, while NewIndex links answers in time order, the
	// answer types each upload already has (see choose's tie rule); nil
	// for Find.
	answered map[int]map[string]bool
}

func refKey(sender, ref string) string { return sender + "\x00" + ref }

func newFinder(uploads []Upload) *finder {
	f := &finder{uploads: uploads, byRef: map[string][]int{}, byBGM: map[string][]int{}}
	for i, u := range uploads {
		if u.ControlRef != "" {
			k := refKey(u.Sender, u.ControlRef)
			f.byRef[k] = append(f.byRef[k], i)
		}
		seen := map[string]bool{}
		for _, n := range u.BGMNumbers {
			if n != "" && !seen[n] {
				seen[n] = true
				f.byBGM[n] = append(f.byBGM[n], i)
			}
		}
	}
	return f
}

func (f *finder) find(a Answer) Link {
	switch a.Type {
	case "CONTRL":
		l := Link{Upload: -1, By: ByInterchange, Ref: a.InterchangeRef}
		if a.InterchangeRef == "" {
			return l
		}
		var cands []int
		matches := f.byRef[refKey(a.InterchangeSender, a.InterchangeRef)]
		if a.InterchangeSender != "" { // uploads recorded without a sender fit any
			matches = append(matches[:len(matches):len(matches)], f.byRef[refKey("", a.InterchangeRef)]...)
		}
		for _, i := range matches {
			u := &f.uploads[i]
			if u.Recipient == "" || a.InterchangeRecipient == "" || u.Recipient == a.InterchangeRecipient {
				cands = append(cands, i)
			}
		}
		return f.choose(l, cands, a, "that interchange reference")
	case "ORDRSP", "APERAK":
		l := Link{Upload: -1, By: ByOrder}
		for _, ref := range a.Refs {
			cands := f.byBGM[ref]
			if len(cands) == 0 {
				continue
			}
			l.Ref = ref
			var fit []int
			for _, i := range cands {
				if partiesFit(&f.uploads[i], a) {
					fit = append(fit, i)
				}
			}
			if len(fit) == 0 {
				// order numbers are unique per buyer, not globally
				l.Why = otherBuyerText(&f.uploads[cands[len(cands)-1]], ref, a)
				return l
			}
			return f.choose(l, fit, a, "that order number")
		}
		if len(a.Refs) > 0 {
			l.Ref = a.Refs[0]
		}
		return l
	}
	return Link{Upload: -1}
}

// partiesFit says whether the answer is about the upload's order between
// the same parties: it went from the upload's recipient to its sender
// (UNB), for its buyer and supplier (NAD). A party unknown on either side
// fits.
func partiesFit(u *Upload, a Answer) bool {
	same := func(x, y string) bool { return x == "" || y == "" || x == y }
	return same(u.Recipient, a.From) && same(u.Sender, a.To) && same(u.Buyer, a.Buyer) && same(u.Supplier, a.Supplier)
}

// otherBuyerText says why an answer naming an order number of ours is not
// linked: its parties are another buyer's or another supplier's.
func otherBuyerText(u *Upload, ref string, a Answer) string {
	buyer := u.Buyer
	if buyer == "" {
		buyer = u.Sender
	}
	s := "same order number as " + termsafe.String(ref) + " of buyer " + termsafe.String(buyer)
	switch {
	case a.Buyer != "" && a.Buyer != buyer:
		s += ", but this answer is for buyer " + termsafe.String(a.Buyer)
	case a.Supplier != "" && u.Supplier != "" && a.Supplier != u.Supplier:
		s += ", but this answer is from supplier " + termsafe.String(a.Supplier)
	case a.From != "" && u.Recipient != "" && a.From != u.Recipient:
		s += ", but this answer was sent by " + termsafe.String(a.From) + ", not by " + termsafe.String(u.Recipient)
	case a.To != "" && u.Sender != "" && a.To != u.Sender:
		s += ", but this answer was sent to " + termsafe.String(a.To)
	}
	return s + ": not linked by the number alone"
}

// sentAt is when the upload was sent on the server's clock: this
// machine's time when the upload's answer carried a Date that agrees
// with it (finer than the Date's whole seconds: two uploads and an answer
// within one second keep their order), the Date when the clocks differ.
// exact says the server's clock was known: the answer may then precede
// it only by DateResolution, not ClockSkew.
func (u *Upload) sentAt() (t time.Time, exact bool) {
	if u.ServerAt.IsZero() {
		return u.At, false
	}
	if d := u.At.Sub(u.ServerAt); d > DateResolution || d < -DateResolution {
		return u.ServerAt, true
	}
	return u.At, true
}

// sentAfterReceipt reports whether the upload left after the answer
// was already stored here: then it cannot be what the answer answers.
// Both times are the machines' own clocks (the upload's At, the answer's
// Received), not the mailbox's whole seconds; an upload without its own
// time is never ruled out this way.
func (u *Upload) sentAfterReceipt(a Answer) bool {
	return !a.Received.IsZero() && !u.At.IsZero() && u.At.After(a.Received)
}

// identity names an upload whatever record of it is given: its uploadId,
// else its key.
func (u *Upload) identity() string {
	if u.UploadID != "" {
		return "u:" + u.UploadID
	}
	return "k:" + u.Key
}

// choose picks among the candidate uploads (indexes in history order) the
// one the answer answers: the latest sent at or before the answer was
// created. Only when none was, an upload recorded on this machine's clock
// up to ClockSkew after the answer is taken (the earliest such: clocks
// differ); otherwise the answer is unlinked, and Why says so. Records of
// the same upload count once.
func (f *finder) choose(l Link, cands []int, a Answer, reused string) Link {
	distinct := map[string]bool{}
	best, skewed, early := -1, -1, 0
	var tied []int // sent within the answer's own (whole) second
	for _, i := range cands {
		u := &f.uploads[i]
		distinct[u.identity()] = true
		if u.sentAfterReceipt(a) {
			early++ // the answer was here before this upload left
			continue
		}
		sent, exact := u.sentAt()
		if a.At.Nanosecond() == 0 {
			// an answer dated in whole seconds (the mailbox's createdAt)
			// is compared in whole seconds: sent in its second is "at"
			sent = sent.Truncate(time.Second)
		}
		switch {
		case a.At.IsZero() || !sent.After(a.At):
			if best < 0 || !sent.Before(at(&f.uploads[best])) {
				best = i
			}
			if a.At.Nanosecond() == 0 && sent.Equal(a.At) {
				tied = append(tied, i)
			}
		case !sent.After(a.At.Add(window(exact))):
			if skewed < 0 || sent.Before(at(&f.uploads[skewed])) {
				skewed = i
			}
		}
	}
	l.Candidates = len(distinct)
	if best >= 0 && len(tied) > 1 && f.answered != nil {
		// several uploads with the reference were sent in the second the
		// answer is dated: the partner answers each once, in the order it
		// got them, so the earliest of them without an answer of this type
		// takes it (answers are linked in the order they were created)
		slices.SortStableFunc(tied, func(x, y int) int { return at(&f.uploads[x]).Compare(at(&f.uploads[y])) })
		for _, i := range tied {
			if !f.answered[i][a.Type] {
				best = i
				break
			}
		}
	}
	switch {
	case best >= 0:
		l.Upload = best
		seen := map[string]bool{f.uploads[best].identity(): true}
		for _, i := range cands {
			if u := &f.uploads[i]; !seen[u.identity()] && at(u).After(at(&f.uploads[best])) {
				seen[u.identity()] = true
				l.Later++
			}
		}
	case skewed >= 0:
		l.Upload, l.Skewed = skewed, true
	case len(cands) > 0 && early == len(cands):
		l.Why = "downloaded before every upload with " + reused + " was sent"
		if l.Candidates == 1 {
			l.Why = "downloaded before the upload with " + reused + " was sent"
		}
	case len(cands) > 0:
		l.Why = "created before every upload with " + reused
		if l.Candidates == 1 {
			l.Why = "created before the upload with " + reused
		}
	}
	return l
}

func at(u *Upload) time.Time { t, _ := u.sentAt(); return t }

// window is how much later than an answer an upload may be dated and
// still be the one it answers when none precedes it: the Date's
// resolution when the server's clock is known, else ClockSkew.
func window(exact bool) time.Duration {
	if exact {
		return DateResolution
	}
	return ClockSkew
}

// Distinct returns one entry per upload among records of accepted upload
// attempts (oldest first): a replay (200, the same uploadId) and the
// records of one key are the same upload, kept once with the time it was
// first sent. of[i] is the index in out of records[i]. The link input of
// every screen and command is built with it.
func Distinct(records []Upload) (out []Upload, of []int) {
	byID, byKey := map[string]int{}, map[string]int{}
	of = make([]int, len(records))
	for i, r := range records {
		j, ok := byID[r.UploadID]
		if !ok || r.UploadID == "" {
			j, ok = byKey[r.Key]
		}
		if !ok {
			j = len(out)
			out = append(out, r)
		} else if out[j].UploadID == "" {
			out[j].UploadID, out[j].InterchangeID = r.UploadID, r.InterchangeID
		}
		if out[j].ServerAt.IsZero() && !r.Replay {
			out[j].ServerAt = r.ServerAt // the final record of the first send
		}
		if r.UploadID != "" {
			byID[r.UploadID] = j
		}
		byKey[r.Key] = j
		of[i] = j
	}
	return out, of
}

// DateResolution is how far apart the server's Date (whole seconds, read
// after the answer's round trip) and this machine's clock may be and
// still agree.
const DateResolution = 2 * time.Second

// Time is when the upload was sent, for timelines and tables: this
// machine's time, finer than the Date header's whole seconds, unless the
// server's clock differs from it by more than DateResolution; then the
// server's, the clock the answers are dated on.
func (u Upload) Time() time.Time { return at(&u) }
