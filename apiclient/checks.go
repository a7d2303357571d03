package apiclient

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// check fills the five check results. rawHash and rawTrailer are the
// unsanitised server values, compared as sent.
func (r *IntegrityReport) check(expect Expect, rawHash, rawTrailer string) {
	got := strconv.FormatInt(r.Bytes, 10)
	r.SizeHeader = CheckResult{Name: CheckSizeHeader, Got: got}
	if r.HeaderSize < 0 {
		r.SizeHeader.Detail = "X-B2B-Payload-Size header missing or not a number"
	} else {
		r.SizeHeader.Want = strconv.FormatInt(r.HeaderSize, 10)
		r.SizeHeader.OK = r.Bytes == r.HeaderSize
		if !r.SizeHeader.OK {
			r.SizeHeader.Detail = fmt.Sprintf("received %d bytes, header announced %d", r.Bytes, r.HeaderSize)
		}
	}

	if r.overflow && r.HeaderSize >= 0 {
		r.SizeHeader.OK = false
		r.SizeHeader.Detail = fmt.Sprintf("the body went on past %d bytes; stopped reading", r.Bytes)
	}

	listingKnown := expect != Expect{}
	r.SizeListing = CheckResult{Name: CheckSizeListing, Got: got}
	switch {
	case !listingKnown:
		r.SizeListing.Detail = "no listing values given: pass the mailbox entry's payloadSize and payloadSha256"
	default:
		r.SizeListing.Want = strconv.FormatInt(expect.Size, 10)
		r.SizeListing.OK = r.Bytes == expect.Size
		if !r.SizeListing.OK {
			r.SizeListing.Detail = fmt.Sprintf("received %d bytes, the mailbox listed %d", r.Bytes, expect.Size)
		}
	}

	if r.overflow && listingKnown {
		r.SizeListing.OK = false
		r.SizeListing.Detail = fmt.Sprintf("the body went on past %d bytes; stopped reading", r.Bytes)
	}

	r.HashHeader = hashCheck(CheckHashHeader, r.SHA256, rawHash, "the X-B2B-Payload-SHA256 header")
	r.HashListing = hashCheck(CheckHashListing, r.SHA256, expect.SHA256, "the mailbox listing's payloadSha256")
	if !listingKnown {
		r.HashListing.Detail = r.SizeListing.Detail
	}

	r.TrailerCheck = CheckResult{Name: CheckTrailer, Want: TrailerVerified, Got: r.Trailer}
	if r.refused {
		r.notRun(expect)
		return
	}
	if r.LocalStop != nil {
		r.stoppedHere()
		return
	}
	switch v := strings.TrimSpace(rawTrailer); {
	case strings.EqualFold(v, TrailerVerified):
		r.TrailerCheck.OK = true
	case r.ReadErr != nil || r.SinkErr != nil:
		r.TrailerCheck.Detail = "the body was not read to EOF, so there is no trailer"
	case v == "":
		r.TrailerCheck.Detail = "trailer X-B2B-Payload-Integrity missing after EOF (counts as failed)"
	default:
		r.TrailerCheck.Detail = "the server reports the stream as " + strconv.Quote(r.Trailer)
	}
}

// notRun marks the checks of a download refused before reading (an
// announced size above MaxPayloadSize): the size that was announced fails,
// every other check is "not run" rather than failed on zero bytes.
func (r *IntegrityReport) notRun(expect Expect) {
	tooLarge := func(c *CheckResult, n int64, what string) bool {
		if n <= MaxPayloadSize {
			return false
		}
		c.OK, c.Detail = false, fmt.Sprintf("%s announces %d bytes, more than the contract's 16 MiB limit; nothing was read", what, n)
		return true
	}
	header := tooLarge(&r.SizeHeader, r.HeaderSize, "the X-B2B-Payload-Size header")
	listing := expect != Expect{} && tooLarge(&r.SizeListing, expect.Size, "the mailbox listing")
	for _, c := range []*CheckResult{&r.SizeHeader, &r.SizeListing, &r.HashHeader, &r.HashListing, &r.TrailerCheck} {
		if c == &r.SizeHeader && header || c == &r.SizeListing && listing {
			continue
		}
		c.OK, c.NotRun, c.Got, c.Detail = false, true, "", "not run: nothing was read"
	}
}

// stoppedHere marks every check "not run" with the local cause: a
// download this side stopped (cancelled, a write failed) says nothing
// about the partner's bytes, so nothing failed.
func (r *IntegrityReport) stoppedHere() {
	detail := "not run: the download was " + termsafe.String(capRunes(r.LocalStop.Error(), 200))
	for _, c := range []*CheckResult{&r.SizeHeader, &r.SizeListing, &r.HashHeader, &r.HashListing, &r.TrailerCheck} {
		c.OK, c.NotRun, c.Detail = false, true, detail
	}
}

// hashCheck compares hex case-insensitively; want must be 64 hex digits.
func hashCheck(name, got, want, what string) CheckResult {
	c := CheckResult{Name: name, Got: got, Want: sanitiseValue(want)}
	switch {
	case want == "":
		c.Detail = what + " is missing"
	case !isSHA256Hex(want):
		c.Detail = what + " is not 64 hex digits"
	case strings.EqualFold(got, want):
		c.OK = true
	default:
		c.Detail = "SHA-256 of the received bytes differs from " + what
	}
	return c
}

// logDownload writes the outcome: allowed fields plus the names of failed
// checks (never sizes' content, hashes or payload).
func (c *Client) logDownload(ctx context.Context, cl *call, r *IntegrityReport) {
	level, outcome := slog.LevelInfo, "verified"
	attrs := []slog.Attr{slog.String("op", cl.op)}
	if !r.OK() {
		level, outcome = slog.LevelWarn, "failed"
		var names []string
		for _, ch := range r.Failed() {
			names = append(names, ch.Name)
		}
		if r.ReadErr != nil {
			names = append(names, "read")
		}
		if r.SinkErr != nil {
			names = append(names, "sink")
		}
		attrs = append(attrs, slog.String("failed", strings.Join(names, ",")))
	}
	attrs = append(attrs, slog.String("outcome", outcome))
	attrs = append(attrs, c.idAttrs(cl.corr, cl.deliveryID)...)
	attrs = append(attrs, slog.Duration("duration", r.Duration))
	c.log.LogAttrs(ctx, level, "payload download", attrs...)
}
