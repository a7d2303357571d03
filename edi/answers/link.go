package answers

import "time"

// ClockSkew is how much later than an answer an upload may be recorded
// and still count as sent before it: the history uses the local clock,
// the mailbox the server's.
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
}

// Linked reports whether the answer belongs to an upload.
func (l Link) Linked() bool { return l.Upload >= 0 }

// Ambiguous reports whether several uploads matched.
func (l Link) Ambiguous() bool { return l.Candidates > 1 }

// Find links one answer to the upload it answers.
func Find(uploads []Upload, a Answer) Link {
	return newFinder(uploads).find(a)
}

// finder holds the uploads by CONTRL key and by BGM number.
type finder struct {
	uploads []Upload
	byRef   map[string][]int // sender "\x00" control reference
	byBGM   map[string][]int
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
		return f.choose(l, cands, a.At)
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
			if len(fit) > 0 {
				cands = fit
			}
			return f.choose(l, cands, a.At)
		}
		if len(a.Refs) > 0 {
			l.Ref = a.Refs[0]
		}
		return l
	}
	return Link{Upload: -1}
}

// partiesFit says whether the answer went from the upload's recipient to
// its sender; unknown parties fit.
func partiesFit(u *Upload, a Answer) bool {
	return (u.Recipient == "" || a.From == "" || u.Recipient == a.From) &&
		(u.Sender == "" || a.To == "" || u.Sender == a.To)
}

// choose picks among the candidate uploads (indexes in history order):
// records of the same upload count once, and the latest sent before the
// answer (within ClockSkew) wins, else the earliest.
func (f *finder) choose(l Link, cands []int, at time.Time) Link {
	distinct := map[string]bool{}
	best, earliest := -1, -1
	for _, i := range cands {
		u := &f.uploads[i]
		id := "u:" + u.UploadID
		if u.UploadID == "" {
			id = "k:" + u.Key
		}
		distinct[id] = true
		if at.IsZero() || !u.At.After(at.Add(ClockSkew)) {
			if best < 0 || !u.At.Before(f.uploads[best].At) {
				best = i
			}
		}
		if earliest < 0 || u.At.Before(f.uploads[earliest].At) {
			earliest = i
		}
	}
	l.Candidates = len(distinct)
	l.Upload = best
	if best < 0 {
		l.Upload = earliest
	}
	return l
}
