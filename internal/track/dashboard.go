package track

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Figures are one connection at a glance, for the start screen. Each
// figure says what it is based on: the mailbox's first page (Due,
// Oldest, Ages) or this machine's stored files (the rest).
type Figures struct {
	Conn string `json:"connection"`

	// From the mailbox's first page: how many entries are due (DueMore:
	// the page was full, there are more), the oldest createdAt on it and
	// its entries by age (AgeBuckets).
	MailboxRead bool      `json:"mailboxRead"`
	Due         int       `json:"due"`
	DueMore     bool      `json:"dueMore"`
	Oldest      time.Time `json:"oldest,omitzero"`
	Ages        [len(AgeBuckets)]int
	MailboxErr  string `json:"mailboxError,omitempty"` // why the page could not be read (sanitise)

	// From the index of this machine's files.
	Refused     int  `json:"refused"`        // deliveries refused here (a failed check) and not stored since
	Awaiting    int  `json:"awaiting"`       // accepted uploads waiting for an answer, not yet overdue
	Overdue     int  `json:"overdue"`        // accepted uploads whose CONTRL or ORDRSP is late
	NeedsAction int  `json:"needsAction"`    // uploads a CONTRL or APERAK rejected
	Team        bool `json:"team,omitempty"` // from a team store's index (what anyone on the team stored and sent)
}

// AgeBuckets are the upper bounds of the backlog's age bars.
var AgeBuckets = [...]time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour, 72 * time.Hour, 1 << 62}

// AgeLabels name AgeBuckets.
var AgeLabels = [len(AgeBuckets)]string{"<1h", "1-6h", "6-24h", "1-3d", ">3d"}

// AddMailboxPage fills the mailbox figures from the first page: the
// entries' createdAt and whether the server said there are more.
func (f *Figures) AddMailboxPage(created []time.Time, hasMore bool, now time.Time) {
	f.MailboxRead, f.Due, f.DueMore = true, len(created), hasMore
	f.Ages, f.Oldest, f.MailboxErr = [len(AgeBuckets)]int{}, time.Time{}, ""
	for _, c := range created {
		if c.IsZero() {
			continue
		}
		if f.Oldest.IsZero() || c.Before(f.Oldest) {
			f.Oldest = c
		}
		age := now.Sub(c)
		for i, b := range AgeBuckets {
			if age < b {
				f.Ages[i]++
				break
			}
		}
	}
}

// DueText says how many are due and what that is based on: "50+ due
// (page 1)" while only the first page is known, "12 due", "none due",
// "due: not read yet".
func (f Figures) DueText() string {
	switch {
	case f.MailboxErr != "":
		return "due: mailbox not read (" + f.MailboxErr + ")"
	case !f.MailboxRead:
		return "due: reading page 1…"
	case f.DueMore:
		return fmt.Sprintf("%d+ due (page 1)", f.Due)
	case f.Due == 0:
		return "none due"
	}
	return fmt.Sprintf("%d due", f.Due)
}

// OldestText is the oldest due entry's age: "oldest 3h (page 1)".
func (f Figures) OldestText(now time.Time) string {
	if !f.MailboxRead || f.Oldest.IsZero() {
		return ""
	}
	s := "oldest " + Age(now.Sub(f.Oldest))
	if f.DueMore {
		s += " (page 1)"
	}
	return s
}

// StoreText is the figures from this machine's files: "refused here 1 ·
// awaiting 2 · overdue 1 · needs action 0 (this machine's files)", or
// "(the team's data)" from a team store's index.
func (f Figures) StoreText() string {
	from := "this machine's files"
	if f.Team {
		from = "the team's data"
	}
	return fmt.Sprintf("refused here %d · awaiting answer %d · overdue %d · needs action %d (%s)",
		f.Refused, f.Awaiting, f.Overdue, f.NeedsAction, from)
}

// Chart is the backlog's age as a bar per bucket ("<1h ▂ 1-6h █ …"),
// "" when nothing is due.
func (f Figures) Chart() string {
	top := 0
	for _, n := range f.Ages {
		top = max(top, n)
	}
	if top == 0 {
		return ""
	}
	bars := []rune(" ▁▂▃▄▅▆▇█")
	parts := make([]string, len(f.Ages))
	for i, n := range f.Ages {
		b := bars[0]
		if n > 0 {
			b = bars[1+(n*(len(bars)-2))/top]
		}
		parts[i] = fmt.Sprintf("%s %c%d", AgeLabels[i], b, n)
	}
	return "age " + strings.Join(parts, " ")
}

// ConnFigures counts a connection's refused deliveries, awaiting,
// overdue and needs-action uploads from the index (sync it first).
func (x *Index) ConnFigures(ctx context.Context, conn string, sla SLA) (Figures, error) {
	f := Figures{Conn: conn}
	seen, err := x.b.ByKind(ctx, KindSeen, time.Time{})
	if err != nil {
		return f, err
	}
	refused := map[string]bool{}
	for _, it := range seen {
		if it.Conn == conn && it.State == string(spool.SeenRefused) {
			refused[it.Ref] = true
		}
	}
	for id := range refused {
		// stored since: no longer refused
		items, err := x.b.Match(ctx, Match{Value: norm(id), Kinds: []KeyKind{KeyID}, Conn: conn, Limit: 10})
		if err != nil {
			return f, err
		}
		stored := false
		for _, it := range items {
			stored = stored || it.Kind == KindDelivery && it.Ref == id
		}
		if !stored {
			f.Refused++
		}
	}
	states, err := x.UploadStates(ctx, time.Time{}, conn, func(string) SLA { return sla })
	if err != nil {
		return f, err
	}
	for _, s := range states {
		switch {
		case s.IsNeedsAction():
			f.NeedsAction++
		case s.IsOverdue():
			f.Overdue++
		case s.Flag() == "awaiting":
			f.Awaiting++
		}
	}
	return f, nil
}
