package worker

import (
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Step names one step of the contract's worker order. The values are
// stable (used in --json output).
type Step string

// The steps of Process, in order. Reading the mailbox (step 1 of the
// contract) is the Runner's, see Runner.Head and Runner.Find.
const (
	StepList        Step = "list"        // reading the mailbox (Runner.Head, Runner.Find)
	StepClaim       Step = "claim"       // leasing the entry
	StepDownload    Step = "download"    // no payload answer, or the stream broke
	StepVerify      Step = "verify"      // byte count, SHA-256 or trailer did not match
	StepStore       Step = "store"       // the durable local write failed
	StepExport      Step = "export"      // Options.Export failed
	StepAcknowledge Step = "acknowledge" // the acknowledge call failed
	StepRecord      Step = "record"      // acknowledged, but writing the receipt locally failed
)

// Event is reported once per step transition (never per chunk) through
// Options.OnEvent. The concrete types are Claimed, Downloading, Verified,
// Stored, Acknowledged and Failed.
type Event interface{ event() }

// Claimed: the entry is leased until ExpiresAt (the server's clock),
// Deadline on the local one. ClockSkew is non-zero when the two clocks
// disagree (see Lease.ClockSkew and SkewNote).
type Claimed struct {
	Entry     apiclient.Entry
	ExpiresAt time.Time
	Deadline  time.Time
	ClockSkew time.Duration
}

// Downloading: the payload stream starts. Poll Progress.Snapshot (about
// 10 Hz) until the next event arrives.
type Downloading struct {
	Entry    apiclient.Entry
	Progress *apiclient.Progress
}

// Verified: every integrity check passed.
type Verified struct {
	Report *apiclient.IntegrityReport
}

// Stored: the payload is durable in the spool.
type Stored struct {
	Stored *spool.Stored
}

// Acknowledged: the server confirmed the delivery.
type Acknowledged struct {
	Receipt *apiclient.Receipt
}

// Failed: the step failed; nothing after it runs. Err is a *StepError.
type Failed struct {
	Step Step
	Err  error
}

func (Claimed) event()      {}
func (Downloading) event()  {}
func (Verified) event()     {}
func (Stored) event()       {}
func (Acknowledged) event() {}
func (Failed) event()       {}
