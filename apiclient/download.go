package apiclient

import (
	"context"
	"errors"
	"io"
)

// Expect is what the mailbox listing said about a payload.
type Expect struct {
	Size   int64
	SHA256 string
}

// Names of the integrity checks, as used in CheckResult.Name.
const (
	CheckSizeHeader  = "sizeHeader"
	CheckSizeListing = "sizeListing"
	CheckHashHeader  = "hashHeader"
	CheckHashListing = "hashListing"
	CheckTrailer     = "trailer"
)

// CheckResult is the outcome of one integrity check.
type CheckResult struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Want   string `json:"want"`
	Got    string `json:"got"`
	Detail string `json:"detail,omitempty"`
}

// IntegrityReport is the full result of a download. Download always returns
// it, also on failure.
type IntegrityReport struct {
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	Bytes             int64  `json:"bytes"`  // bytes received and written to the sink
	SHA256            string `json:"sha256"` // lower-case hex of those bytes

	HeaderSize   int64  `json:"headerSize"` // X-B2B-Payload-Size; -1 if missing or invalid
	HeaderSHA256 string `json:"headerSha256"`
	Trailer      string `json:"trailer"` // X-B2B-Payload-Integrity after EOF; "" if missing

	SizeHeader   CheckResult `json:"sizeHeader"`
	SizeListing  CheckResult `json:"sizeListing"`
	HashHeader   CheckResult `json:"hashHeader"`
	HashListing  CheckResult `json:"hashListing"`
	TrailerCheck CheckResult `json:"trailerCheck"`

	// ReadErr is any error while reading the body (reset, unexpected EOF,
	// cancel, stall): a failed download whatever the checks say.
	ReadErr error `json:"-"`
	// SinkErr is an error writing to the sink: also a failed download.
	SinkErr error `json:"-"`

	CorrelationID string `json:"correlationId"`
}

// Checks lists the five checks in a fixed order.
func (r *IntegrityReport) Checks() []CheckResult {
	return []CheckResult{r.SizeHeader, r.SizeListing, r.HashHeader, r.HashListing, r.TrailerCheck}
}

// OK reports whether the payload may be processed: no read or sink error
// and every check passed.
func (r *IntegrityReport) OK() bool { return false }

// Failed lists the failed checks.
func (r *IntegrityReport) Failed() []CheckResult { return nil }

// Download streams the claimed payload into sink in one pass, counting and
// hashing while it goes, updating p (may be nil), and checks size and
// SHA-256 against the headers and the listing (expect) and the trailer
// after EOF. It returns the report in every case once the payload answer
// started; the error is an *IntegrityError when the download failed.
func (c *Client) Download(ctx context.Context, claim *Claim, expect Expect, sink io.Writer, p *Progress) (*IntegrityReport, error) {
	return nil, errors.New("not implemented")
}
