package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// An Order is what a face asks the Runner to do: P, W, the marked
// entries, fetch --next, fetch --all, fetch ID. The Runner holds it and
// decides every move (Next): which entry is claimed next, when a run goes
// on and when it ends. A face performs the moves (each step in its own
// command, to show it and cancel it) or lets Run perform them; it keeps
// no flags of its own about where the order stands.

// OrderKind is what an Order processes.
type OrderKind int

// The kinds of orders.
const (
	// OrderHead: the head, once (P, enter on the head, fetch --next).
	OrderHead OrderKind = iota + 1
	// OrderWorker: head after head until nothing is due, Pause, or the
	// first entry that does not pass (W, fetch --all). Always
	// acknowledges.
	OrderWorker
	// OrderMarked: Order.Entries in their order (the worker order of the
	// marked rows), each once, until the first that does not pass.
	// Always acknowledges.
	OrderMarked
	// OrderEntry: Order.Entries[0], once (fetch ID; Process).
	OrderEntry
)

// Order is one order for the Runner.
type Order struct {
	Kind OrderKind
	// Entries are OrderMarked's entries and OrderEntry's one entry, as
	// listed (their size and hash are what the download is checked
	// against). An ID given twice is taken once.
	Entries []apiclient.Entry
	// NoAck stops after the durable store and leaves the lease to run
	// out (fetch --next or fetch ID without --ack): OrderHead and
	// OrderEntry only.
	NoAck bool
	// FromPage lets OrderWorker take the next entry from the page the
	// last head search read (as All does) instead of reading the mailbox
	// again for every entry (see All).
	FromPage bool
}

// MoveKind is what a face does next for the order.
type MoveKind int

// The moves.
const (
	// MoveEnd: the order is over (Move.End says how), or there is none.
	MoveEnd MoveKind = iota
	// MoveHead: search the head (Head), then hand its answer to Headed.
	MoveHead
	// MoveClaim: claim Move.Entry (the Runner already called Begin on
	// it): call Claim.
	MoveClaim
	// MoveFetch: call Fetch on the current claim.
	MoveFetch
	// MoveAck: call Ack on the current claim.
	MoveAck
	// MoveWait: a step of the current claim is running; ask again when
	// it ended.
	MoveWait
)

// End is how an order ended.
type End int

// The ends.
const (
	EndNone   End = iota // no order
	EndDone              // every entry of the order passed
	EndEmpty             // the head search found nothing due (OrderHead, OrderWorker)
	EndPaused            // Pause: OrderWorker stopped after an acknowledged entry
	EndFailed            // an entry, or the listing, did not pass (Move.Err); nothing is skipped
)

// Move is the Runner's answer to "what now?" for its order.
type Move struct {
	Kind MoveKind
	// Entry is the entry of MoveClaim.
	Entry apiclient.Entry
	// Choice is how MoveClaim's entry was chosen (the head search's
	// refused and relisted entries); zero for a given entry.
	Choice Choice
	// End and Err tell how a MoveEnd order ended.
	End End
	Err error
	// Kind of the order that ended (MoveEnd), e.g. to say "worker mode
	// stopped".
	Order OrderKind
}

// orderState is the running order.
type orderState struct {
	Order
	next     int    // OrderMarked, OrderEntry: the next entry of Entries
	took     bool   // OrderHead: the head was taken
	awaiting bool   // MoveHead handed out: waiting for Headed
	pause    bool   // OrderWorker: end after the current entry
	choice   Choice // how the current entry was chosen
	onPage   bool   // the current entry was taken from an earlier page (as All does)
}

// Start makes o the runner's order. It refuses while another order runs
// or a claim is active (one claim per connection), and an order it could
// not carry out (no entries; NoAck on an order that acknowledges). A
// finished claim still current is cleared first.
func (r *Runner) Start(o Order) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.ord != nil:
		return errors.New("already processing: wait for it, or stop it first")
	case r.activeLocked():
		return r.refuseLocked(r.cur.entry)
	case (o.Kind == OrderMarked || o.Kind == OrderEntry) && len(o.Entries) == 0:
		return errors.New("nothing to process: no entry given")
	case o.NoAck && (o.Kind == OrderWorker || o.Kind == OrderMarked):
		return errors.New("a run over several entries acknowledges each entry: without it every entry would be claimed and left to its lease")
	case o.Kind < OrderHead || o.Kind > OrderEntry:
		return fmt.Errorf("unknown order kind %d", o.Kind)
	}
	if o.Kind == OrderEntry {
		o.Entries = o.Entries[:1]
	}
	seen := map[string]bool{}
	var entries []apiclient.Entry
	for _, e := range o.Entries {
		if !seen[e.DeliveryAttemptID] {
			seen[e.DeliveryAttemptID] = true
			entries = append(entries, e)
		}
	}
	o.Entries = entries
	if r.cur != nil {
		r.clearLocked()
	}
	r.ord = &orderState{Order: o}
	return nil
}

// Order is the running order; pausing is true once Pause was asked.
func (r *Runner) Order() (o Order, pausing, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ord == nil {
		return Order{}, false, false
	}
	return r.ord.Order, r.ord.pause, true
}

// Pause ends an OrderWorker after the entry it works on (W pressed again);
// false when no OrderWorker runs.
func (r *Runner) Pause() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ord == nil || r.ord.Kind != OrderWorker {
		return false
	}
	r.ord.pause = true
	return true
}

// Extend turns a running OrderHead that acknowledges into an OrderWorker
// (W while P runs: go on after it); false when there is none.
func (r *Runner) Extend() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ord == nil || r.ord.Kind != OrderHead || r.ord.NoAck {
		return false
	}
	r.ord.Kind, r.ord.took = OrderWorker, false
	return true
}

// StopOrder ends the order now (a face's step failed or was given up);
// the current claim stays as it is.
func (r *Runner) StopOrder() {
	r.mu.Lock()
	r.ord = nil
	r.mu.Unlock()
}

// Next is the order's next move, decided from where the current claim
// stands: after a claim the fetch, after the fetch the acknowledge (or
// the end, with NoAck: the lease is dropped), after an acknowledged
// entry the next one (OrderWorker: a head search, or the next entry of
// the page read; OrderMarked: the next entry), the end after a failure
// (never skipped), after Pause, or when nothing is left. For MoveClaim
// it has called Begin; an entry Begin refuses ends the order (EndFailed).
// Next does no I/O: a face calls it in its update function.
func (r *Runner) Next() Move {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.ord
	if o == nil {
		return Move{Kind: MoveEnd}
	}
	if o.awaiting {
		return Move{Kind: MoveHead}
	}
	if c := r.cur; c != nil {
		switch c.phase {
		case PhaseClaiming, PhaseFetching, PhaseAcking:
			return Move{Kind: MoveWait}
		case PhaseClaimed:
			return Move{Kind: MoveFetch}
		case PhaseFetched:
			if o.NoAck {
				r.dropLocked()
				return r.endLocked(EndDone, nil)
			}
			return Move{Kind: MoveAck}
		case PhaseClaimFailed:
			if o.onPage && claimGone(c.res) {
				// Taken from a page read earlier, and claimed by another
				// client since: read the mailbox again.
				r.clearLocked()
				o.onPage = false
				return r.headLocked()
			}
			return r.endLocked(EndFailed, c.err)
		case PhaseFetchFailed, PhaseAckFailed:
			return r.endLocked(EndFailed, c.err)
		case PhaseReleased:
			return r.endLocked(EndFailed, fmt.Errorf("%s: the claim was dropped", termsafe.String(c.entry.DeliveryAttemptID)))
		case PhaseAcked:
			if c.err != nil { // acknowledged, but the receipt was not recorded
				return r.endLocked(EndFailed, c.err)
			}
			if o.pause {
				return r.endLocked(EndPaused, nil)
			}
		}
	}
	switch o.Kind {
	case OrderHead:
		if o.took {
			return r.endLocked(EndDone, nil)
		}
		return r.headLocked()
	case OrderWorker:
		if o.FromPage && r.cur != nil {
			if c, ok := r.nextOnPageLocked(o.choice); ok {
				return r.takeLocked(c, true)
			}
		}
		return r.headLocked()
	}
	if o.next >= len(o.Entries) {
		return r.endLocked(EndDone, nil)
	}
	e := o.Entries[o.next]
	o.next++
	return r.takeLocked(Choice{Entry: e}, false)
}

// Headed hands the order the answer of the head search a MoveHead asked
// for, and is the next move: MoveClaim of the head, or the end (EndEmpty
// when nothing is due, EndFailed when the listing failed).
func (r *Runner) Headed(c Choice, err error) Move {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.ord
	if o == nil || !o.awaiting {
		return Move{Kind: MoveEnd}
	}
	o.awaiting = false
	switch {
	case errors.Is(err, ErrEmpty):
		mv := r.endLocked(EndEmpty, nil)
		mv.Choice = c
		return mv
	case err != nil:
		mv := r.endLocked(EndFailed, err)
		mv.Choice = c
		return mv
	}
	o.took = true
	return r.takeLocked(c, false)
}

func (r *Runner) headLocked() Move {
	r.ord.awaiting = true
	return Move{Kind: MoveHead}
}

// takeLocked begins the claim on c.Entry for the order.
func (r *Runner) takeLocked(c Choice, onPage bool) Move {
	o := r.ord
	if err := r.refuseLocked(c.Entry); err != nil {
		mv := r.endLocked(EndFailed, err)
		mv.Entry, mv.Choice = c.Entry, c
		return mv
	}
	if r.cur != nil {
		r.clearLocked()
	}
	r.cur = &current{entry: c.Entry, phase: PhaseClaiming}
	o.choice, o.onPage = c, onPage
	return Move{Kind: MoveClaim, Entry: c.Entry, Choice: c}
}

func (r *Runner) endLocked(end End, err error) Move {
	kind := r.ord.Kind
	r.ord = nil
	return Move{Kind: MoveEnd, End: end, Err: err, Order: kind}
}

// Run carries out o for a face that waits, performing every move itself:
// the one implementation of fetch --next, fetch ID and fetch --all, and
// of Process and All. opts (nil: none) gives the options of each entry's
// claim and fetch; the order decides the acknowledge, and an entry's
// options without it in an order that acknowledges stop the order before
// its claim. each, if set, is called after every entry with how it was
// chosen, its Result and error, and once more with a nil Result when a
// head search ended the order (ErrEmpty when nothing was due, or the
// listing's error). An entry whose claim was answered 404 or 409 after
// it was taken from a page read earlier is not reported: the mailbox is
// read again (see All). A lease the order did not acknowledge is dropped
// at its end (the token is forgotten; the entry stays blocked while the
// lease may run). Run returns nil when the order ended done, empty or
// paused, else the error that ended it.
func (r *Runner) Run(ctx context.Context, o Order, opts func(apiclient.Entry) ProcessOptions, each func(Choice, *Result, error)) error {
	if err := r.Start(o); err != nil {
		return err
	}
	defer r.FlushSeen()
	var (
		po    ProcessOptions
		entry *Choice // the entry in work, not reported yet
		last  *Result
	)
	report := func() {
		if entry != nil && each != nil {
			var err error
			if last != nil {
				err = last.Err
			}
			each(*entry, last, err)
		}
		entry, last = nil, nil
	}
	for {
		mv := r.Next()
		if mv.Kind == MoveHead {
			if last != nil && last.FailedStep == StepClaim {
				entry, last = nil, nil // claimed elsewhere since its page was read: not this run's failure
			}
			report()
			c, err := r.Head(ctx)
			if err != nil && each != nil {
				each(c, nil, err)
			}
			mv = r.Headed(c, err)
		}
		switch mv.Kind {
		case MoveClaim:
			report()
			c := mv.Choice
			entry = &c
			po = ProcessOptions{Ack: !o.NoAck}
			if opts != nil {
				po = opts(mv.Entry)
			}
			if !po.Ack && !o.NoAck {
				r.StopOrder()
				r.Clear()
				entry = nil
				return errors.New("a run that acknowledges each entry was given an entry's options without the acknowledge: without it every entry would be claimed and left to its lease")
			}
			_, _ = r.Claim(ctx, po.Claim)
			if cur, ok := r.Current(); ok && cur.Result != nil {
				last = cur.Result
			}
		case MoveFetch:
			last, _ = r.Fetch(ctx, po.Fetch)
		case MoveAck:
			if res, _ := r.Ack(ctx); res != nil {
				last = res
			}
			if cur, ok := r.Current(); ok && cur.Err != nil && last != nil && last.Err == nil {
				// acknowledged, but the receipt could not be recorded
				l := *last
				l.Err = cur.Err
				last = &l
			}
			report() // the entry ended: reported while it is current (GoOn)
		case MoveWait:
			return fmt.Errorf("process: %w", ErrBusy)
		case MoveEnd:
			if e := mv.Entry; e.DeliveryAttemptID != "" {
				// the next entry was refused before its claim
				report()
				c := mv.Choice
				entry = &c
				last = &Result{Entry: e, FailedStep: StepClaim, Err: &StepError{Step: StepClaim, DeliveryAttemptID: e.DeliveryAttemptID, Err: mv.Err}}
			}
			if mv.End != EndDone && mv.End != EndPaused {
				r.Drop()
			}
			report()
			return runEnd(mv)
		}
	}
}

func runEnd(mv Move) error {
	switch mv.End {
	case EndDone, EndEmpty, EndPaused, EndNone:
		return nil
	}
	if mv.Err == nil {
		return errors.New("the run stopped after an entry that did not pass")
	}
	return mv.Err
}
