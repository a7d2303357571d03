package conntab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// leaseWarn is when the lease countdown turns into a warning.
const leaseWarn = 60 * time.Second

// checkOrder and checkWords: one panel line per check, in words.
var checkOrder = []string{apiclient.CheckSizeHeader, apiclient.CheckSizeListing, apiclient.CheckHashHeader,
	apiclient.CheckHashListing, apiclient.CheckTrailer, worker.CheckStored}

var checkWords = map[string]string{
	apiclient.CheckSizeHeader:  "size vs header",
	apiclient.CheckSizeListing: "size vs listing",
	apiclient.CheckHashHeader:  "hash vs header",
	apiclient.CheckHashListing: "hash vs listing",
	apiclient.CheckTrailer:     "trailer verified",
	worker.CheckStored:         "stored durably",
}

// claimLines is the live panel of the claim: lease, download, SHA-256,
// the six checks, and the outcome (refusal, receipt, what to do next).
func (m Model) claimLines() []string {
	cl := m.claim
	lines := []string{m.leaseLine()}
	if m.cur().Held == nil {
		return lines
	}
	lines = append(lines, m.downloadLine())
	if cl.res != nil && cl.res.NotRunCause() != "" {
		lines = append(lines, m.c.Styles.Muted.Render("  sha256    (not computed: the download was stopped here)"))
	} else if cl.res != nil && cl.res.Report != nil {
		lines = append(lines, "  sha256    "+termsafe.String(cl.res.Report.SHA256))
	} else {
		lines = append(lines, m.c.Styles.Muted.Render("  sha256    (once the stream has ended)"))
	}
	lines = append(lines, m.checkLines()...)
	lines = append(lines, m.outcomeLines()...)
	lines = append(lines, m.claimLinkLines()...)
	return append(lines, m.claimContractLines()...)
}

// claimContractLines are the stored delivery's contract findings (the
// Partner API's version rules for this connection's profile directory:
// an ORDRSP in the other directory, a CONTRL 4:1 under syntax 3), read
// from the linked answers once the delivery is linked.
func (m Model) claimContractLines() []string {
	cl := m.claim
	if cl == nil || cl.res == nil || cl.res.Stored == nil {
		return nil
	}
	dir := ""
	if m.conn != nil {
		dir = m.conn.Target.Directory
	}
	s := m.c.Styles
	var lines []string
	for _, f := range m.links.cur.ContractFindings(cl.entry.DeliveryAttemptID, dir) {
		lines = append(lines, "  "+s.Header.Render("contract")+"     "+s.Warn.Render(s.Marks.Warn+" "+capText(termsafe.String(f))))
	}
	return lines
}

func (m Model) leaseLine() string {
	s, cl, cur := m.c.Styles, m.claim, m.cur()
	id := termsafe.String(cl.entry.DeliveryAttemptID)
	label := s.Header.Render("claim") + "     "
	switch cur.Phase {
	case worker.PhaseClaiming:
		return label + s.Marks.Wait + " claiming " + id + "…"
	case worker.PhaseClaimFailed, worker.PhaseNone:
		return label + s.Error.Render(s.Marks.Fail+" "+id+": the claim failed (see the footer); nothing is leased")
	case worker.PhaseAcked:
		return label + s.OK.Render(s.Marks.OK+" "+id) + "  lease ended by the acknowledge"
	case worker.PhaseReleased:
		return label + s.Muted.Render(s.Marks.Wait+" "+id+" dropped: the token is forgotten; the lease runs out at "+clock(cur.Deadline()))
	}
	skew := ""
	if d := cur.Held.ClockSkew(); d != 0 {
		skew = "  " + s.Warn.Render(s.Marks.Warn+" "+worker.SkewNote(d)+": counted on the server's")
	}
	left := m.run.LeaseLeft()
	switch {
	case left <= 0:
		return label + s.OK.Render(s.Marks.OK+" "+id) + "  " + s.Error.Render("lease expired at "+clock(cur.Deadline())+": the entry becomes due again; nothing can be acknowledged") + skew
	case left < leaseWarn:
		return label + s.OK.Render(s.Marks.OK+" "+id) + "  " + s.Warn.Render(s.Marks.Warn+" lease "+countdown(left)+" left (until "+clock(cur.Deadline())+")") + skew
	}
	return label + s.OK.Render(s.Marks.OK+" "+id) + "  lease " + countdown(left) + " left (until " + clock(cur.Deadline()) + ")" + skew
}

func (m Model) downloadLine() string {
	s, cl, ph := m.c.Styles, m.claim, m.run.Phase()
	label := s.Header.Render("download") + "  "
	switch {
	case ph == worker.PhaseClaimed:
		return label + s.Muted.Render(s.Marks.Wait+" not started — d downloads, verifies and stores it")
	case cl.progress == nil:
		return label + s.Muted.Render(s.Marks.Wait+" not run")
	}
	line := label + m.progressLine(cl.snap, cl.entry.PayloadSize)
	if ph == worker.PhaseFetching {
		switch cl.stage {
		case stageVerified:
			line += "  storing…"
		case stageStored:
			line += "  stored"
		}
	} else if cl.snap.Elapsed > 0 {
		line += "  in " + cl.snap.Elapsed.Round(time.Millisecond).String()
	}
	return line
}

// checkLines: ✓ passed, ✗ failed (with why), · not run yet.
func (m Model) checkLines() []string {
	s, cl, ph := m.c.Styles, m.claim, m.run.Phase()
	states := map[string]worker.CheckState{}
	if cl.res != nil && ph != worker.PhaseFetching {
		for _, c := range cl.res.Checks() {
			states[c.Name] = c
		}
	} else if ph == worker.PhaseFetching && cl.stage >= stageVerified {
		for _, n := range checkOrder[:5] { // the Verified event: every integrity check passed
			states[n] = worker.CheckState{Name: n, State: worker.StatePassed}
		}
		if cl.stage >= stageStored {
			states[worker.CheckStored] = worker.CheckState{Name: worker.CheckStored, State: worker.StatePassed}
		}
	}
	lines := make([]string, 0, len(checkOrder))
	for _, n := range checkOrder {
		c, ok := states[n]
		word := fmt.Sprintf("%-17s", checkWords[n])
		switch {
		case !ok || c.State == worker.StateNotRun:
			lines = append(lines, "  "+s.Muted.Render(s.Marks.Wait+" "+word+" not run"))
		case c.State == worker.StateFailed:
			lines = append(lines, "  "+s.Error.Render(s.Marks.Fail+" "+word)+" "+termsafe.String(c.Detail))
		default:
			lines = append(lines, "  "+s.OK.Render(s.Marks.OK+" "+word)+" "+m.passedDetail(n))
		}
	}
	return lines
}

// passedDetail is the evidence shown next to a passed check.
func (m Model) passedDetail(name string) string {
	res := m.claim.res
	if res == nil {
		return ""
	}
	switch name {
	case apiclient.CheckSizeHeader, apiclient.CheckSizeListing:
		if res.Report != nil {
			return fmt.Sprintf("%d bytes", res.Report.Bytes)
		}
	case worker.CheckStored:
		if res.Stored != nil {
			p := termsafe.String(res.Stored.Path)
			if res.Stored.AlreadyStored {
				p += " (the same bytes were already stored)"
			}
			return p
		}
	}
	return ""
}

// failedChecks names the checks that failed, in words.
func failedChecks(res *worker.Result) []string {
	if res == nil {
		return nil
	}
	var out []string
	for _, c := range res.Checks() {
		if c.State == worker.StateFailed {
			out = append(out, checkWords[c.Name])
		}
	}
	return out
}

// outcomeLines: the refusal (which check, nothing acknowledged), the
// receipt, or the next key.
func (m Model) outcomeLines() []string {
	s, cl, cur := m.c.Styles, m.claim, m.cur()
	due := "the lease expires at " + clock(cur.Deadline()) + " and the entry becomes due again"
	switch cur.Phase {
	case worker.PhaseClaimed:
		return []string{s.Muted.Render("  d download + verify · x drop the claim")}
	case worker.PhaseFetching:
		return []string{s.Muted.Render("  downloading… esc cancels (nothing is acknowledged then)")}
	case worker.PhaseFetchFailed:
		why := "the download failed: " + capText(termsafe.String(errText(cur.Err)))
		switch failed := failedChecks(cl.res); {
		case cl.cancelled || errors.Is(cur.Err, context.Canceled):
			why = "the download was cancelled: no check ran"
		case cl.res.NotRunCause() != "":
			why = "no check ran: the download was " + capText(cl.res.NotRunCause())
		case len(failed) > 0:
			why = "NOT VERIFIED — failed: " + strings.Join(failed, ", ")
		}
		return []string{
			s.Error.Render(s.Marks.Fail + " " + why),
			s.Error.Render("  Nothing will be acknowledged; ") + due + ". x drops the claim.",
		}
	case worker.PhaseFetched:
		if err := m.run.CanAck(); err != nil {
			// The lease ran out after the store: never "a acknowledges it".
			return []string{
				s.OK.Render(s.Marks.OK+" verified and stored durably") + " — " + s.Error.Render("but not acknowledged: the lease has ended"),
				s.Error.Render("  Nothing can be acknowledged with this token; ") + "the entry becomes due again. x clears this panel.",
			}
		}
		return []string{s.OK.Render(s.Marks.OK+" verified and stored durably") + " — a acknowledges it (same token) · x drops the claim"}
	case worker.PhaseAcking:
		return []string{s.Marks.Wait + " acknowledging…"}
	case worker.PhaseAckFailed:
		line := s.Error.Render(s.Marks.Fail+" acknowledge failed: ") + capText(termsafe.String(errText(cur.Err)))
		if m.run.CanAck() == nil {
			return []string{line, "  a tries again with the same token (if the server already has it, it replays the receipt) · x drops the claim"}
		}
		return []string{line, s.Error.Render("  Not acknowledged; ") + due + "."}
	case worker.PhaseAcked:
		r := cl.res.Receipt
		replay := "no"
		if r.Replay {
			replay = "yes (the server had it already)"
		}
		return []string{s.OK.Render(s.Marks.OK+" acknowledged") + fmt.Sprintf(" · receipt %s · at %s · replay %s",
			termsafe.String(r.ReceiptID), r.AcknowledgedAt.Local().Format("2006-01-02 15:04:05"), replay)}
	case worker.PhaseReleased:
		return []string{s.Muted.Render("  x clears this panel")}
	}
	return nil
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
