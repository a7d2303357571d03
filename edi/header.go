package edi

import (
	"strings"
	"time"
)

// readUNB fills the interchange header facts and checks the mandatory
// elements, the syntax identifier/version and the preparation date.
func (b *builder) readUNB(i int) {
	s := b.d.Segment(i)
	ic := b.cur()
	ic.Separators, ic.Charset = s.dia.seps, s.dia.charset
	ic.SyntaxID = s.Text(1, 1)
	ic.SyntaxVersion = s.dia.version
	if v := s.Text(1, 2); ic.SyntaxVersion == 0 && v != "" {
		ic.badVersion = v
		b.kept(v)
	}
	ic.Sender = Party{ID: s.Text(2, 1), Qualifier: s.Text(2, 2), Routing: s.Text(2, 3)}
	ic.Recipient = Party{ID: s.Text(3, 1), Qualifier: s.Text(3, 2), Routing: s.Text(3, 3)}
	ic.PreparedDate, ic.PreparedTime = s.Text(4, 1), s.Text(4, 2)
	ic.ControlRef = s.Text(5, 1)
	ic.AppRef = s.Text(7, 1)
	ic.TestIndicator = s.Text(11, 1)
	b.kept(ic.SyntaxID, ic.Sender.ID, ic.Sender.Qualifier, ic.Sender.Routing, ic.Recipient.ID, ic.Recipient.Qualifier,
		ic.Recipient.Routing, ic.PreparedDate, ic.PreparedTime, ic.ControlRef, ic.AppRef, ic.TestIndicator)

	b.missing(s, CodeUNBElementMissing, []field{
		{1, 1, "syntax identifier (S001/0001)"}, {1, 2, "syntax version (S001/0002)"},
		{2, 1, "sender identification (S002/0004)"}, {3, 1, "recipient identification (S003/0010)"},
		{4, 1, "preparation date (S004/0017)"}, {4, 2, "preparation time (S004/0019)"},
		{5, 1, "interchange control reference (0020)"},
	})
	if ic.SyntaxID != "" {
		switch intro := SyntaxIDVersion(ic.SyntaxID); {
		case intro == 0 && ic.SyntaxVersion >= 4:
			b.d.issuef(SeverityWarning, CodeSyntaxUnknown, SyntaxVersionNotSupported, i, s.ElementOffset(1),
				"syntax identifier %q is not in the list of syntax version 4 (UNOA-UNOL, UNOW, UNOX, UNOY; and IATA, IATB); text is shown as UTF-8 where valid, else as ISO 8859-1", ic.SyntaxID)
		case intro == 0:
			b.d.issuef(SeverityWarning, CodeSyntaxUnknown, SyntaxVersionNotSupported, i, s.ElementOffset(1),
				"syntax identifier %q is not in the list of syntax version %s (UNOA-UNOF; and IATA, IATB; version 4 adds UNOG-UNOL, UNOW, UNOX, UNOY); text is shown as UTF-8 where valid, else as ISO 8859-1", ic.SyntaxID, versionText(s.Text(1, 2)))
		case intro == 4 && ic.SyntaxVersion >= 1 && ic.SyntaxVersion < 4:
			b.d.issuef(SeverityWarning, CodeSyntaxIDVersion, SyntaxVersionNotSupported, i, s.ElementOffset(1),
				"syntax identifier %s belongs to syntax version 4, but UNB declares version %d, whose list ends at UNOF; declare %s:4 (text is decoded as %s anyway)", ic.SyntaxID, ic.SyntaxVersion, ic.SyntaxID, ic.Charset)
		}
	}
	if v := s.Text(1, 2); v != "" && (ic.SyntaxVersion < 1 || ic.SyntaxVersion > 4) {
		b.d.issuef(SeverityError, CodeSyntaxVersion, SyntaxVersionNotSupported, i, s.ElementOffset(1),
			"syntax version %q is not 1, 2, 3 or 4", v)
	}
	if ic.PreparedDate != "" && ic.PreparedTime != "" {
		t, ok := parseDateTime(ic.PreparedDate, ic.PreparedTime)
		if ok {
			ic.PreparedAt = t
		} else {
			b.d.issuef(SeverityWarning, CodeDateInvalid, SyntaxInvalidValue, i, s.ElementOffset(4),
				"preparation date/time %q:%q is not a valid date (YYMMDD or CCYYMMDD) and time (HHMM)", ic.PreparedDate, ic.PreparedTime)
		}
	}
}

// parseDateTime reads S004: date YYMMDD (syntax 1-3) or CCYYMMDD (syntax
// 4; accepted in any version) and time HHMM.
func parseDateTime(date, clock string) (time.Time, bool) {
	if len(clock) != 4 {
		return time.Time{}, false
	}
	layout := ""
	switch len(date) {
	case 6:
		layout = "060102"
	case 8:
		layout = "20060102"
	default:
		return time.Time{}, false
	}
	t, err := time.Parse(layout+"1504", date+clock)
	return t, err == nil
}

func (b *builder) readUNG(i int) {
	s := b.d.Segment(i)
	g := &b.d.Groups[b.grp]
	g.ID = s.Text(1, 1)
	g.Sender = Party{ID: s.Text(2, 1), Qualifier: s.Text(2, 2)}
	g.Recipient = Party{ID: s.Text(3, 1), Qualifier: s.Text(3, 2)}
	g.PreparedDate, g.PreparedTime = s.Text(4, 1), s.Text(4, 2)
	g.Ref = s.Text(5, 1)
	g.Agency = s.Text(6, 1)
	g.Version, g.Release, g.Association = s.Text(7, 1), s.Text(7, 2), s.Text(7, 3)
	b.kept(g.ID, g.Sender.ID, g.Sender.Qualifier, g.Recipient.ID, g.Recipient.Qualifier, g.PreparedDate, g.PreparedTime,
		g.Ref, g.Agency, g.Version, g.Release, g.Association)
	b.missing(s, CodeUNGElementMissing, []field{{5, 1, "group reference number (0048)"}})
}

func (b *builder) readUNH(i int) {
	s := b.d.Segment(i)
	m := &b.d.Messages[b.msg]
	m.Ref = s.Text(1, 1)
	m.Type, m.Version, m.Release = b.intern(s.Text(2, 1)), b.intern(s.Text(2, 2)), b.intern(s.Text(2, 3))
	m.Agency, m.Association = b.intern(s.Text(2, 4)), b.intern(s.Text(2, 5))
	b.kept(m.Ref)
	b.missing(s, CodeUNHElementMissing, []field{
		{1, 1, "message reference number (0062)"}, {2, 1, "message type (S009/0065)"},
		{2, 2, "message version (S009/0052)"}, {2, 3, "message release (S009/0054)"},
		{2, 4, "controlling agency (S009/0051)"},
	})
	if b.grp < 0 {
		return
	}
	g := &b.d.Groups[b.grp]
	if (g.ID != "" && g.ID != m.Type) || (g.Version != "" && (g.Version != m.Version || g.Release != m.Release)) {
		b.d.segIssuef(SeverityWarning, CodeGroupMismatch, 0, i,
			"message %q is %s %s:%s but its functional group (UNG at segment %d) announces %s %s:%s",
			m.Ref, m.Type, m.Version, m.Release, g.First, g.ID, g.Version, g.Release)
	}
}

// field names one mandatory component for missing-element checks.
type field struct {
	e, c int
	name string
}

// missing reports, in one issue, the mandatory components of segment s
// that are empty.
func (b *builder) missing(s Segment, code Code, fields []field) {
	var names []string
	off := -1
	for _, f := range fields {
		if s.Component(f.e, f.c).IsEmpty() {
			names = append(names, f.name)
			if off < 0 {
				off = s.ElementOffset(f.e)
			}
		}
	}
	if len(names) > 0 {
		b.d.issuef(SeverityError, code, SyntaxMissing, s.Index(), off,
			"%s lacks mandatory data: %s", s.Tag(), strings.Join(names, ", "))
	}
}

// trailer reads a trailer's count (element 1) and reference (element 2),
// checks both against what was counted and the header reference, and
// returns the count as written (-1 when not a number).
func (b *builder) trailer(i int, what string, want int, wantRef string, countCode, refCode Code) (int, string) {
	s := b.d.Segment(i)
	raw, ref := s.Value(1, 1), s.Text(2, 1)
	tag := s.Tag()
	n, ok := atoi(raw)
	switch {
	case !ok:
		b.d.issuef(SeverityError, CodeCountInvalid, SyntaxInvalidValue, i, s.ElementOffset(1),
			"%s control count %q is not a number; expected %d (%s)", tag, raw, want, what)
		n = -1
	case n != want:
		b.d.issuef(SeverityError, countCode, SyntaxCountDiffers, i, s.ElementOffset(1),
			"%s control count is %d but there are %d (%s); set %s element 1 to %d", tag, n, want, what, tag, want)
	}
	if ref != wantRef {
		b.d.issuef(SeverityError, refCode, SyntaxReferencesDiffer, i, s.ElementOffset(2),
			"%s reference %q does not match the header reference %q; trailer and header must carry the same reference", tag, ref, wantRef)
	}
	return n, ref
}

func (b *builder) checkUNT(i int, m *Message) {
	m.TrailerCount, m.TrailerRef = b.trailer(i, "segments from UNH through UNT, both included",
		m.Segments(), m.Ref, CodeUNTCountMismatch, CodeUNTRefMismatch)
	m.TrailerRef = b.sameAs(m.TrailerRef, m.Ref)
}

func (b *builder) checkUNE(i int, g *Group) {
	g.TrailerCount, g.TrailerRef = b.trailer(i, "messages in the group",
		g.numMsg, g.Ref, CodeUNECountMismatch, CodeUNERefMismatch)
	g.TrailerRef = b.sameAs(g.TrailerRef, g.Ref)
}

// sameAs returns ref as the header's string when they are equal (the
// usual case: one string kept, not two), else counts it.
func (b *builder) sameAs(ref, header string) string {
	if ref == header {
		return header
	}
	b.kept(ref)
	return ref
}

func (b *builder) checkUNZ(i int) {
	ic := b.cur()
	what := "messages in the interchange"
	if len(b.d.Groups) > b.icFirstGrp[b.ic] {
		what = "functional groups in the interchange"
	}
	ic.TrailerCount, ic.TrailerRef = b.trailer(i, what, b.expectedUNZCount(), ic.ControlRef,
		CodeUNZCountMismatch, CodeUNZRefMismatch)
	ic.TrailerRef = b.sameAs(ic.TrailerRef, ic.ControlRef)
}

// atoi parses a non-negative decimal count of at most 9 digits.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// versionText shows a syntax version as written, or "(missing)".
func versionText(v string) string {
	if v == "" {
		return "(missing)"
	}
	return v
}
