package track

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Screen names what a timeline step opens in the app.
type Screen string

// The screens a step can open.
const (
	OpenNone   Screen = ""
	OpenViewer Screen = "viewer" // the segment viewer on Open.Path
	OpenDiff   Screen = "diff"   // the order diff of Open.Orders against Open.Path (an ORDRSP)
	OpenClaim  Screen = "claim"  // the claim panel of delivery Open.Delivery on connection Open.Conn
	OpenEvent  Screen = "event"  // the event inspector on capture Open.Path, at event Open.Event
)

// Opens is what a step opens: its screen and that screen's arguments.
type Opens struct {
	Screen   Screen `json:"screen,omitempty"`
	Path     string `json:"path,omitempty"`
	Orders   string `json:"orders,omitempty"`
	Conn     string `json:"connection,omitempty"`
	Delivery string `json:"delivery,omitempty"`
	Event    string `json:"event,omitempty"`
}

// Step is one step of a conversation's timeline. Title and Lines are
// sanitised for a terminal; Source says where the step comes from (the
// file, the history, the journal).
type Step struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"` // upload, answer, stored, acknowledged, claimed, refused, failed, event, note
	Conn   string    `json:"connection,omitempty"`
	Title  string    `json:"title"`
	Lines  []string  `json:"lines,omitempty"`
	Source string    `json:"source"`
	Open   Opens     `json:"open,omitzero"`
	// By is who stored or sent it ("alice on host-3"; a team store's
	// steps), sanitised; "" for this machine's.
	By string `json:"by,omitempty"`

	cause string // an event's causationid: it comes after that event
}

// Timeline tells a conversation step by step in time order. The details
// (CONTRL reasons, ORDRSP changes per line) are read from the stored
// files; a file that cannot be read says so in its step.
func (x *Index) Timeline(ctx context.Context, c Conversation) []Step {
	links, _ := linkItems(c.Items)
	var steps []Step
	for i := range c.Items {
		it := &c.Items[i]
		var add []Step
		switch it.Kind {
		case KindUpload:
			add = []Step{uploadStep(it)}
		case KindDelivery:
			add = x.deliverySteps(ctx, it, links)
		case KindSeen:
			add = []Step{seenStep(it)}
		case KindEvent:
			add = []Step{eventStep(it)}
		}
		// an item's own steps happen in their order (created, stored,
		// acknowledged) whatever the clocks say: the partner's clock dates
		// the answer, this machine's the storing. A later step dated
		// before an earlier one is shown at the earlier one's time, and
		// says when its own clock put it.
		var floor time.Time
		for _, s := range add {
			s.By = it.By.String()
			if floor.After(s.At) {
				if floor.Sub(s.At) > answers.DateResolution {
					s.Lines = append(s.Lines, "at "+s.At.UTC().Format(time.RFC3339)+" by this machine's clock, which is behind the server's")
				}
				s.At = floor
			}
			floor = s.At
			steps = append(steps, s)
		}
	}
	SortSteps(steps)
	return steps
}

// stepRank is the causal order of steps at the same moment: the upload,
// its CONTRL, APERAK and ORDRSP, what this machine saw of a delivery,
// its storing and acknowledging, then events and notes.
func stepRank(s *Step) int {
	switch s.Kind {
	case "upload":
		return 0
	case "answer":
		switch {
		case strings.HasPrefix(s.Title, "CONTRL"):
			return 1
		case strings.HasPrefix(s.Title, "APERAK"):
			return 2
		}
		return 3
	case "claimed", "refused", "failed":
		return 4
	case "stored":
		return 5
	case "acknowledged":
		return 6
	case "event":
		return 7
	}
	return 8
}

// SortSteps puts steps in time order (each step's own At), steps of the
// same moment in causal order (stepRank), and events of the same moment
// after the event their causationid names.
func SortSteps(steps []Step) {
	sort.SliceStable(steps, func(a, b int) bool {
		if !steps[a].At.Equal(steps[b].At) {
			return steps[a].At.Before(steps[b].At)
		}
		return stepRank(&steps[a]) < stepRank(&steps[b])
	})
	// causation among events of one moment: move an event after its cause
	for moved, rounds := true, 0; moved && rounds < len(steps); rounds++ {
		moved = false
		for i := 0; i+1 < len(steps); i++ {
			a, b := &steps[i], &steps[i+1]
			if a.Kind == "event" && b.Kind == "event" && a.At.Equal(b.At) && a.cause != "" && a.cause == b.Open.Event {
				steps[i], steps[i+1] = steps[i+1], steps[i]
				moved = true
			}
		}
	}
}

func safe(s string) string { return termsafe.String(s) }

func uploadStep(it *Item) Step {
	d, _ := it.upload()
	s := Step{At: it.At, Kind: "upload", Conn: it.Conn, Source: "upload history " + safe(it.Path)}
	if !d.Upload.Time().Equal(d.At) {
		// the item is dated on the server's clock, like the answers
		s.Lines = append(s.Lines, "recorded here at "+d.At.UTC().Format(time.RFC3339)+" by this machine's clock")
	}
	switch spool.Outcome(it.State) {
	case spool.OutcomeAccepted:
		s.Title = "ORDERS uploaded: " + safe(it.Status)
	case spool.OutcomePending:
		s.Title = "ORDERS upload started, no result recorded (the process may have died mid-send: the next attempt reuses the key)"
	default:
		s.Title = "ORDERS upload " + safe(it.Status)
	}
	if d.File != "" {
		s.Lines = append(s.Lines, "file "+safe(d.File))
	}
	s.Lines = append(s.Lines, "key "+safe(d.Key))
	if d.HTTP != 0 {
		s.Lines = append(s.Lines, "HTTP "+strconv.Itoa(d.HTTP))
	}
	if d.UploadID != "" || d.InterchangeID != "" {
		s.Lines = append(s.Lines, "upload ID "+safe(d.UploadID)+", interchange ID "+safe(d.InterchangeID))
	}
	if d.ControlRef != "" || len(d.BGMNumbers) > 0 {
		s.Lines = append(s.Lines, "interchange "+safe(d.ControlRef)+" from "+safe(d.Sender)+", orders "+safe(strings.Join(d.BGMNumbers, ", ")))
	}
	if d.Error != "" {
		s.Lines = append(s.Lines, "error "+safe(d.Error))
	}
	if d.SHA256 != "" {
		// the kept copy of the bytes sent: <conn dir>/sent/<sha>.edi next to the history
		s.Open = Opens{Screen: OpenViewer, Path: filepath.Join(filepath.Dir(it.Path), "sent", strings.ToLower(d.SHA256)+".edi")}
	}
	if it.Note != "" {
		s.Lines = append(s.Lines, "the file sent: "+safe(it.Note))
	}
	return s
}

func (x *Index) deliverySteps(ctx context.Context, it *Item, links map[string]*connLinks) []Step {
	var m spool.Meta // the mailbox times and the receipt, from the sidecar
	if raw, err := x.read(it.Path); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	src := "delivery " + safe(it.Ref) + " (" + safe(it.Path) + ")"
	payload := strings.TrimSuffix(it.Path, ".json") + ".edi"
	var steps []Step
	due := Step{At: it.At, Kind: "answer", Conn: it.Conn, Source: src, Open: Opens{Screen: OpenViewer, Path: payload}}
	// an acknowledged delivery is gone from the mailbox: its first step
	// is when it was created there, not that it is due
	where := " (due in the mailbox)"
	if m.AcknowledgedAt != nil || it.State == "acknowledged" {
		where = " (created in the mailbox)"
	}
	if it.Note != "" {
		due.Title = safe(it.Type) + " " + strings.Trim(where, " ()") + "; " + safe(it.Status)
		due.Lines = []string{safe(it.Note)}
		steps = append(steps, due)
	} else {
		cl := links[it.Conn]
		var details map[int][]string // message index → lines, read once per file
		for k, a := range it.Answers() {
			s := due
			s.Title = safe(a.Outcome()) + where
			if cl != nil && cl.x != nil && k < len(cl.pos[it.Ref]) {
				j := cl.pos[it.Ref][k]
				s.Lines = append(s.Lines, cl.x.AnswerText(j))
				if l := cl.x.Link(j); l.Linked() && cl.items[l.Upload].At.After(s.At) {
					// placed after the upload it answers: this machine
					// recorded the upload once the server had answered
					if cl.items[l.Upload].At.Sub(s.At) > answers.DateResolution {
						s.Lines = append(s.Lines, "created "+s.At.UTC().Format(time.RFC3339)+" by the server's clock, before this machine recorded the upload")
					}
					s.At = cl.items[l.Upload].At
				}
				if a.Type == "ORDRSP" {
					if l := cl.x.Link(j); l.Linked() {
						s.Open = Opens{Screen: OpenDiff, Path: payload, Orders: sentPathOf(cl.items[l.Upload])}
						s.Lines = append(s.Lines, x.ordrspChanges(ctx, cl.items[l.Upload], payload, a.Message)...)
					}
				}
			}
			if a.Type != "ORDRSP" {
				if details == nil {
					details = answerDetails(ctx, payload)
				}
				s.Lines = append(s.Lines, details[a.Message]...)
			}
			steps = append(steps, s)
		}
		if len(steps) == 0 {
			due.Title = safe(it.Type) + " " + strings.Trim(where, " ()")
			steps = append(steps, due)
		}
	}
	if !m.ReceivedAt.IsZero() {
		steps = append(steps, Step{At: m.ReceivedAt.UTC(), Kind: "stored", Conn: it.Conn, Source: src,
			Title: "claimed, verified (size, SHA-256, trailer) and stored", Open: Opens{Screen: OpenClaim, Conn: it.Conn, Delivery: it.Ref}})
	}
	if m.AcknowledgedAt != nil {
		steps = append(steps, Step{At: m.AcknowledgedAt.UTC(), Kind: "acknowledged", Conn: it.Conn, Source: src,
			Title: "acknowledged, receipt " + safe(m.ReceiptID), Open: Opens{Screen: OpenClaim, Conn: it.Conn, Delivery: it.Ref}})
	}
	return steps
}

// sentPathOf is the kept copy of an upload's bytes.
func sentPathOf(up *Item) string {
	d, _ := up.upload()
	return filepath.Join(filepath.Dir(up.Path), "sent", strings.ToLower(d.SHA256)+".edi")
}

// ordrspChanges is today's order diff of one ORDRSP message against the
// ORDERS that upload sent: the headline and one line per changed line.
func (x *Index) ordrspChanges(ctx context.Context, up *Item, payload string, msg int) []string {
	d, _ := up.upload()
	store, err := spool.Open(filepath.Dir(filepath.Dir(up.Path)))
	if err != nil {
		return []string{"cannot compare with the order: " + safe(err.Error())}
	}
	rec := spool.UploadRecord{ConnectionID: up.Conn, SHA256: d.SHA256, File: d.File, Key: d.Key}
	diffs, err := orders.CompareAnswer(ctx, store, rec, payload)
	if err != nil {
		return []string{"cannot compare with the order: " + safe(err.Error())}
	}
	var out []string
	for _, df := range diffs {
		if df.ResponseMessage != msg && len(diffs) > 1 {
			continue
		}
		out = append(out, safe(df.Headline()))
		for _, r := range df.Rows(false) {
			out = append(out, "  "+safe(r))
		}
	}
	return out
}

// answerDetails reads a CONTRL's reasons and an APERAK's errors per
// message from the stored payload.
func answerDetails(ctx context.Context, payload string) map[int][]string {
	out := map[int][]string{}
	err := readDoc(ctx, payload, -1, func(doc *edi.Document) error {
		for i := range doc.Messages {
			s := doc.Messages[i].Summary()
			switch {
			case s == nil:
			case s.Contrl != nil:
				out[i] = explain.ContrlReasons(s.Contrl)
			case s.Aperak != nil:
				for _, e := range s.Aperak.Errors {
					line := "error " + safe(e.Code)
					if e.Name != "" {
						line += " " + safe(e.Name)
					}
					if len(e.Texts) > 0 {
						line += ": " + safe(strings.Join(e.Texts, " "))
					}
					out[i] = append(out[i], line)
				}
			}
		}
		return nil
	})
	if err != nil {
		out[-1] = []string{safe(err.Error())}
	}
	return out
}

func seenStep(it *Item) Step {
	s := Step{At: it.At, Kind: it.State, Conn: it.Conn, Source: "seen journal " + safe(it.Path), Open: Opens{Screen: OpenClaim, Conn: it.Conn, Delivery: it.Ref}}
	switch spool.SeenState(it.State) {
	case spool.SeenRefused:
		s.Title = safe(it.Type) + " " + safe(it.Ref) + " " + safe(it.Status) + " (not stored, not acknowledged: due again when the lease ends)"
	case spool.SeenClaimed:
		s.Title = safe(it.Type) + " " + safe(it.Ref) + " claimed"
	default:
		s.Title = safe(it.Type) + " " + safe(it.Ref) + " " + safe(it.Status)
	}
	if it.Note != "" {
		s.Lines = []string{safe(it.Note)}
	}
	return s
}

func eventStep(it *Item) Step {
	s := Step{At: it.At, Kind: "event", Source: "event capture " + safe(it.Note), Open: Opens{Screen: OpenEvent, Path: it.Path, Event: it.Ref}}
	s.Title = fmt.Sprintf("event %s %s: %s", safe(it.Type), safe(it.Ref), safe(it.Status))
	var d eventDetail
	if json.Unmarshal([]byte(it.Detail), &d) == nil {
		s.cause = d.Cause
	}
	return s
}
