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
	if cl.lease == nil {
		return lines
	}
	lines = append(lines, m.downloadLine())
	if cl.res != nil && cl.res.Report != nil {
		lines = append(lines, "  sha256    "+termsafe.String(cl.res.Report.SHA256))
	} else {
		lines = append(lines, m.c.Styles.Muted.Render("  sha256    (once the stream has ended)"))
	}
	lines = append(lines, m.checkLines()...)
	lines = append(lines, m.outcomeLines()...)
	return append(lines, m.claimLinkLines()...)
}

func (m Model) leaseLine() string {
	s, cl := m.c.Styles, m.claim
	id := termsafe.String(cl.entry.DeliveryAttemptID)
	label := s.Header.Render("claim") + "     "
	switch cl.phase {
	case phClaiming:
		return label + s.Marks.Wait + " claiming " + id + "…"
	case phClaimFailed:
		return label + s.Error.Render(s.Marks.Fail+" "+id+": the claim failed (see the footer); nothing is leased")
	case phAcked:
		return label + s.OK.Render(s.Marks.OK+" "+id) + "  lease ended by the acknowledge"
	case phReleased:
		return label + s.Muted.Render(s.Marks.Wait+" "+id+" dropped: the token is forgotten; the lease runs out at "+clock(cl.expiresAt))
	}
	left := cl.lease.Remaining()
	switch {
	case left <= 0:
		return label + s.OK.Render(s.Marks.OK+" "+id) + "  " + s.Error.Render("lease expired at "+clock(cl.expiresAt)+": the entry becomes due again; nothing can be acknowledged")
	case left < leaseWarn:
		return label + s.OK.Render(s.Marks.OK+" "+id) + "  " + s.Warn.Render(s.Marks.Warn+" lease "+countdown(left)+" left (until "+clock(cl.expiresAt)+")")
	}
	return label + s.OK.Render(s.Marks.OK+" "+id) + "  lease " + countdown(left) + " left (until " + clock(cl.expiresAt) + ")"
}

func (m Model) downloadLine() string {
	s, cl := m.c.Styles, m.claim
	label := s.Header.Render("download") + "  "
	switch {
	case cl.phase == phClaimed:
		return label + s.Muted.Render(s.Marks.Wait+" not started — d downloads, verifies and stores it")
	case cl.progress == nil:
		return label + s.Muted.Render(s.Marks.Wait+" not run")
	}
	line := label + m.progressLine(cl.snap, cl.entry.PayloadSize)
	if cl.phase == phFetching {
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
	s, cl := m.c.Styles, m.claim
	states := map[string]worker.CheckState{}
	if cl.res != nil && cl.phase != phFetching {
		for _, c := range cl.res.Checks() {
			states[c.Name] = c
		}
	} else if cl.phase == phFetching && cl.stage >= stageVerified {
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
	s, cl := m.c.Styles, m.claim
	due := "the lease expires at " + clock(cl.expiresAt) + " and the entry becomes due again"
	switch cl.phase {
	case phClaimed:
		return []string{s.Muted.Render("  d download + verify · x drop the claim")}
	case phFetching:
		return []string{s.Muted.Render("  downloading… esc cancels (nothing is acknowledged then)")}
	case phFetchFailed:
		why := "the download failed: " + capText(termsafe.String(cl.err.Error()))
		switch failed := failedChecks(cl.res); {
		case cl.cancelled || errors.Is(cl.err, context.Canceled):
			why = "the download was cancelled"
		case len(failed) > 0:
			why = "NOT VERIFIED — failed: " + strings.Join(failed, ", ")
		}
		return []string{
			s.Error.Render(s.Marks.Fail + " " + why),
			s.Error.Render("  Nothing will be acknowledged; ") + due + ". x drops the claim.",
		}
	case phFetched:
		return []string{s.OK.Render(s.Marks.OK+" verified and stored durably") + " — a acknowledges it (same token) · x drops the claim"}
	case phAcking:
		return []string{s.Marks.Wait + " acknowledging…"}
	case phAckFailed:
		line := s.Error.Render(s.Marks.Fail+" acknowledge failed: ") + capText(termsafe.String(cl.err.Error()))
		if cl.lease.CanAck() == nil {
			return []string{line, "  a tries again with the same token (if the server already has it, it replays the receipt) · x drops the claim"}
		}
		return []string{line, s.Error.Render("  Not acknowledged; ") + due + "."}
	case phAcked:
		r := cl.res.Receipt
		replay := "no"
		if r.Replay {
			replay = "yes (the server had it already)"
		}
		return []string{s.OK.Render(s.Marks.OK+" acknowledged") + fmt.Sprintf(" · receipt %s · at %s · replay %s",
			termsafe.String(r.ReceiptID), r.AcknowledgedAt.Local().Format("2006-01-02 15:04:05"), replay)}
	case phReleased:
		return []string{s.Muted.Render("  x clears this panel")}
	}
	return nil
}
