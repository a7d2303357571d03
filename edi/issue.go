package edi

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// Severity says whether an issue makes the file wrong (Error) or only
// unusual (Warning).
type Severity uint8

// Severities. Error means a strict recipient would reject the interchange
// (or the bytes cannot be read as intended); Warning means the data is
// readable and commonly accepted but deviates from ISO 9735.
const (
	SeverityError Severity = iota + 1
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "unknown"
}

// MarshalText makes severities appear as "error"/"warning" in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Code is a stable machine-readable issue identifier. Codes are never
// renamed; new ones may be added.
type Code string

// Issue codes found by Parse. See the package documentation for the rules.
const (
	CodeEmptyInput          Code = "EMPTY_INPUT"                      // the data is empty or only line breaks
	CodeBOM                 Code = "UTF8_BOM"                         // a UTF-8 byte order mark precedes the data
	CodeJunk                Code = "JUNK_BEFORE_INTERCHANGE"          // bytes that are not EDIFACT before UNA/UNB
	CodeTrailingData        Code = "TRAILING_DATA"                    // padding (spaces, NUL, ^Z) after the last segment
	CodeUnterminated        Code = "SEGMENT_UNTERMINATED"             // the data ends inside a segment
	CodeDanglingRelease     Code = "RELEASE_DANGLING"                 // the data ends with a release character that escapes nothing
	CodeReleaseInvalid      Code = "RELEASE_INVALID"                  // release character before a character that needs no escaping
	CodeLineBreakInSegment  Code = "LINE_BREAK_IN_SEGMENT"            // CR/LF inside a segment (hard-wrapped file)
	CodeIndented            Code = "SEGMENTS_INDENTED"                // spaces/tabs after the line break between segments (layout; warning)
	CodeTagInvalid          Code = "TAG_INVALID"                      // segment tag is not 3 upper-case letters/digits
	CodeSegmentEmpty        Code = "SEGMENT_EMPTY"                    // two segment terminators in a row
	CodeTrailingSeparator   Code = "TRAILING_SEPARATOR"               // a segment or composite ends with a separator
	CodeUNAInvalid          Code = "UNA_INVALID"                      // service string advice unusable or truncated
	CodeUNANotFollowedByUNB Code = "UNA_WITHOUT_UNB"                  // UNA followed by something other than UNB
	CodeSyntaxUnknown       Code = "SYNTAX_IDENTIFIER_UNKNOWN"        // UNB 0001 not in the syntax version's list (warning)
	CodeSyntaxIDVersion     Code = "SYNTAX_IDENTIFIER_NOT_IN_VERSION" // a syntax 4 level (UNOG-UNOL, UNOW-UNOY) under syntax 1-3 (warning)
	CodeSyntaxVersion       Code = "SYNTAX_VERSION_INVALID"           // UNB syntax version not 1..4
	CodeUNBElementMissing   Code = "UNB_ELEMENT_MISSING"
	CodeUNGElementMissing   Code = "UNG_ELEMENT_MISSING"
	CodeUNHElementMissing   Code = "UNH_ELEMENT_MISSING"
	CodeDateInvalid         Code = "DATE_INVALID" // preparation date/time in UNB/UNG is not a valid date
	CodeCountInvalid        Code = "CONTROL_COUNT_INVALID"
	CodeUNTCountMismatch    Code = "UNT_COUNT_MISMATCH"
	CodeUNTRefMismatch      Code = "UNT_REF_MISMATCH"
	CodeUNTMissing          Code = "UNT_MISSING"
	CodeUNTUnexpected       Code = "UNT_UNEXPECTED"
	CodeUNEMissing          Code = "UNE_MISSING"
	CodeUNEUnexpected       Code = "UNE_UNEXPECTED"
	CodeUNECountMismatch    Code = "UNE_COUNT_MISMATCH"
	CodeUNERefMismatch      Code = "UNE_REF_MISMATCH"
	CodeUNZMissing          Code = "UNZ_MISSING"
	CodeUNZUnexpected       Code = "UNZ_UNEXPECTED"
	CodeUNZCountMismatch    Code = "UNZ_COUNT_MISMATCH"
	CodeUNZRefMismatch      Code = "UNZ_REF_MISMATCH"
	CodeDataAfterUNZ        Code = "DATA_AFTER_UNZ"
	CodeOutsideMessage      Code = "SEGMENT_OUTSIDE_MESSAGE"
	CodeBareMessage         Code = "MESSAGE_WITHOUT_INTERCHANGE"
	CodeMixedGroups         Code = "GROUPS_AND_MESSAGES_MIXED"
	CodeEmptyInterchange    Code = "INTERCHANGE_EMPTY"
	CodeEmptyGroup          Code = "GROUP_EMPTY"
	CodeGroupMismatch       Code = "GROUP_MESSAGE_MISMATCH" // UNH type/version differs from its UNG
	CodeCharOutsideLevel    Code = "CHAR_OUTSIDE_LEVEL"     // printable character the syntax level does not include
	CodeControlChar         Code = "CONTROL_CHARACTER"      // C0 control character inside a segment
	CodeEightBitInSevenBit  Code = "EIGHT_BIT_IN_7BIT_LEVEL"
	CodeInvalidUTF8         Code = "UTF8_INVALID"
	CodeLooksUTF8           Code = "CHARSET_LOOKS_LIKE_UTF8" // 8-bit level declared, bytes are UTF-8
	CodeC1Control           Code = "C1_CONTROL_CHARACTER"    // 0x80..0x9F in an ISO 8859 level

	// Message structure against the directory (ORDERS, ORDRSP, APERAK in
	// D.96A and D.24A/D.25A; CONTRL). All errors, 0085 code in the issue.
	CodeSegmentUnexpected    Code = "SEGMENT_UNEXPECTED"           // segment not allowed where it is (0085: 15)
	CodeSegmentMissing       Code = "SEGMENT_MISSING"              // mandatory segment skipped or never sent (13)
	CodeGroupMissing         Code = "GROUP_MISSING"                // mandatory segment group skipped (13)
	CodeSegmentRepeats       Code = "SEGMENT_TOO_MANY_REPETITIONS" // more repeats in a row than allowed (35)
	CodeGroupRepeats         Code = "GROUP_TOO_MANY_REPETITIONS"   // more group occurrences than allowed (36)
	CodeStructureOmitted     Code = "STRUCTURE_PROBLEMS_OMITTED"   // more structure problems than are listed per message
	CodeContrlVersion        Code = "CONTRL_VERSION_MISMATCH"      // CONTRL 4:1 under syntax 3, or 2:2/D:3 under syntax 4
	CodeContrlVersionUnknown Code = "CONTRL_VERSION_UNKNOWN"       // CONTRL version other than 2:2, D:3, 4:1 (warning)

	// Data elements against the directory: representation (a, n, an,
	// length) and closed code lists. Service segments' are errors, message
	// segments' warnings (the 0085 code says which rule: 12, 37, 39, 40).
	CodeServiceElementFormat Code = "SERVICE_ELEMENT_FORMAT"   // a service segment's element breaks its format, e.g. 0054 longer than an..3 (error)
	CodeServiceCodeNotInList Code = "SERVICE_CODE_NOT_IN_LIST" // a service segment's coded element is not in the service code list (error)
	CodeElementFormat        Code = "ELEMENT_FORMAT"           // a message element breaks its format (warning)
	CodeCodeNotInList        Code = "CODE_NOT_IN_LIST"         // a message element's code is not in its closed code list (warning)

	// References that must be unique (errors, 0085 code 26: duplicate detected).
	CodeMessageRefDuplicate     Code = "MESSAGE_REF_DUPLICATE"     // two UNH with the same 0062 in one interchange
	CodeGroupRefDuplicate       Code = "GROUP_REF_DUPLICATE"       // two UNG with the same 0048 in one interchange
	CodeInterchangeRefDuplicate Code = "INTERCHANGE_REF_DUPLICATE" // two UNB with the same sender, recipient and 0020 in one input

	// CodeIssuesOmitted stands for the issues of one code (and severity)
	// beyond the first maxIssuesPerCode (1000), which are counted, not
	// listed; Issue.Omitted says how many.
	CodeIssuesOmitted Code = "ISSUES_OMITTED"
)

// IsStructure reports whether the code comes from the message-structure
// check against the directory, rather than from the envelope checks.
func (c Code) IsStructure() bool {
	switch c {
	case CodeSegmentUnexpected, CodeSegmentMissing, CodeGroupMissing, CodeSegmentRepeats, CodeGroupRepeats, CodeStructureOmitted:
		return true
	}
	return false
}

// IsElement reports whether the code comes from the element checks
// (representation and code lists) rather than from the envelope or the
// structure checks.
func (c Code) IsElement() bool {
	switch c {
	case CodeServiceElementFormat, CodeServiceCodeNotInList, CodeElementFormat, CodeCodeNotInList:
		return true
	}
	return false
}

// Syntax error codes (data element 0085) used in issues. Only codes that
// exist with the same meaning in syntax versions 3 and 4 are used, except
// SyntaxTrailingSeparator (version 4 only).
const (
	SyntaxVersionNotSupported = 2  // syntax version or level not supported
	SyntaxInvalidValue        = 12 // invalid value
	SyntaxMissing             = 13 // missing
	SyntaxInvalidServiceChar  = 20 // character invalid as service character
	SyntaxInvalidChars        = 21 // invalid character(s)
	SyntaxReferencesDiffer    = 28 // references do not match
	SyntaxCountDiffers        = 29 // control count does not match number of instances received
	SyntaxGroupsMessagesMixed = 30 // functional groups and messages mixed
	SyntaxLowerLevelEmpty     = 32 // lower level empty
	SyntaxOutsideMessage      = 33 // invalid occurrence outside message or functional group
	SyntaxTrailingSeparator   = 45 // trailing separator (syntax version 4)
)

// Issue is one problem found in the data.
type Issue struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	// Message says what is wrong and what was expected, in English. It may
	// quote values from the data: sanitise it before display.
	Message string `json:"message"`
	// Segment is the 0-based index of the segment concerned in the whole
	// Document, or -1 when the issue concerns bytes outside any segment.
	Segment int `json:"segment"`
	// Offset is the byte offset in the input where the problem is.
	Offset int `json:"offset"`
	// SyntaxError is the UN/EDIFACT syntax error code (0085), 0 when none
	// applies.
	SyntaxError int `json:"syntaxError,omitempty"`
	// Omitted is set on the issues that stand for problems not listed
	// (STRUCTURE_PROBLEMS_OMITTED, ISSUES_OMITTED): how many there are.
	// Their Segment and Offset are those of the first one.
	Omitted int `json:"omitted,omitempty"`
}

// String formats the issue for logs: "error UNT_COUNT_MISMATCH at segment
// 12 (offset 345): ...".
func (i Issue) String() string {
	return fmt.Sprintf("%s %s at segment %d (offset %d): %s", i.Severity, i.Code, i.Segment, i.Offset, i.Message)
}

// Issues returns the issues in input order (by offset, then as found):
// at most maxIssuesPerCode (1000) of each code, and for each code with
// more one ISSUES_OMITTED issue that counts the rest. The slice is the
// Document's own, shared by every caller: read it, never modify it (its
// capacity is clipped, so appending to it copies).
func (d *Document) Issues() []Issue { return d.issues[:len(d.issues):len(d.issues)] }

// IssueCounts returns how many errors and warnings Parse found, listed or
// not: an issue that stands for omitted ones (Issue.Omitted) counts as
// that many.
func (d *Document) IssueCounts() (errors, warnings int) {
	for _, is := range d.issues {
		n := max(is.Omitted, 1)
		if is.Severity == SeverityError {
			errors += n
		} else {
			warnings += n
		}
	}
	return errors, warnings
}

// HasErrors reports whether any issue has SeverityError.
func (d *Document) HasErrors() bool {
	for _, is := range d.issues {
		if is.Severity == SeverityError {
			return true
		}
	}
	return false
}

// maxIssuesPerCode bounds the issues of one code a Document lists; the
// rest are counted in one ISSUES_OMITTED issue per code and severity. A
// file with the same fault a million times then costs a thousand issues,
// not a million (hundreds of megabytes), and the output stays readable.
const maxIssuesPerCode = 1000

// issueLog collects issues, keeping at most maxIssuesPerCode of each code
// and counting the rest. The Document has one; the layers that run on
// their own goroutine (characters, message structure) fill their own and
// are merged into it.
type issueLog struct {
	taken  int // issues added, listed or omitted (see count)
	issues []Issue
	kept   map[Code]int
	over   map[overKey]*overflow
}

// overKey groups omitted issues: one ISSUES_OMITTED per code and severity.
type overKey struct {
	code Code
	sev  Severity
}

// overflow counts the omitted issues of one overKey.
type overflow struct {
	n     int   // problems left out; an omitted issue that itself stands for Omitted problems counts as that many
	first Issue // the one with the lowest offset (first found among equals)
}

// count is how many issues l has taken, listed or counted.
func (l *issueLog) count() int { return l.taken }

// room reports whether one more issue of code is listed.
func (l *issueLog) room(code Code) bool { return l.kept[code] < maxIssuesPerCode }

// add lists is, or counts it when its code is full; it reports whether
// is was listed (and is now the last of l.issues).
func (l *issueLog) add(is Issue) bool {
	l.taken++
	if !l.room(is.Code) {
		l.taken-- // omit counts it
		l.omit(is)
		return false
	}
	if l.kept == nil {
		l.kept = map[Code]int{}
	}
	l.kept[is.Code]++
	l.issues = append(l.issues, is)
	return true
}

// omit counts is as left out; its text is not kept.
func (l *issueLog) omit(is Issue) {
	l.taken++
	is.Message = ""
	k := overKey{is.Code, is.Severity}
	o := l.over[k]
	if o == nil {
		if l.over == nil {
			l.over = map[overKey]*overflow{}
		}
		o = &overflow{first: is}
		l.over[k] = o
	} else if is.Offset < o.first.Offset {
		o.first = is
	}
	o.n += max(is.Omitted, 1)
}

// merge adds o's issues and counts to l.
func (l *issueLog) merge(o *issueLog) {
	for _, is := range o.issues {
		l.add(is)
	}
	l.mergeOver(o)
}

// mergeOver adds o's counts of omitted issues to l.
func (l *issueLog) mergeOver(o *issueLog) {
	for k, ov := range o.over {
		mine := l.over[k]
		if mine == nil {
			if l.over == nil {
				l.over = map[overKey]*overflow{}
			}
			c := *ov
			l.over[k] = &c
			continue
		}
		mine.n += ov.n
		if ov.first.Offset < mine.first.Offset {
			mine.first = ov.first
		}
	}
}

// finish orders the issues by offset (stable), keeps the first
// maxIssuesPerCode of each code in that order, and adds one
// ISSUES_OMITTED issue per code and severity with omitted ones, at the
// first of them. The counting state is dropped: the list is final.
func (l *issueLog) finish() {
	byOffset := func(a, b Issue) int { return cmp.Compare(a.Offset, b.Offset) }
	slices.SortStableFunc(l.issues, byOffset)
	kept := map[Code]int{}
	out := l.issues[:0]
	for _, is := range l.issues {
		if kept[is.Code] == maxIssuesPerCode {
			l.omit(is)
			continue
		}
		kept[is.Code]++
		out = append(out, is)
	}
	clear(l.issues[len(out):]) // release the dropped messages
	l.issues = out
	keys := slices.Collect(maps.Keys(l.over))
	slices.SortFunc(keys, func(a, b overKey) int {
		return cmp.Or(cmp.Compare(a.code, b.code), cmp.Compare(a.sev, b.sev))
	})
	for _, k := range keys {
		o := l.over[k]
		l.issues = append(l.issues, Issue{Severity: k.sev, Code: CodeIssuesOmitted, Segment: o.first.Segment,
			Offset: o.first.Offset, Omitted: o.n,
			Message: fmt.Sprintf("%d more %s %s(s) from offset %d on are not listed (b2bx lists the first %d of each kind)",
				o.n, k.code, k.sev, o.first.Offset, maxIssuesPerCode)})
	}
	slices.SortStableFunc(l.issues, byOffset)
	l.kept, l.over = nil, nil
}

// issuef adds an issue at segment seg (or -1 with an explicit offset); it
// reports whether it is listed. The message is formatted only when it is.
func (d *Document) issuef(sev Severity, code Code, syntax int, seg, off int, format string, args ...any) bool {
	is := Issue{Severity: sev, Code: code, Segment: seg, Offset: off, SyntaxError: syntax}
	if !d.room(code) {
		d.omit(is)
		return false
	}
	is.Message = fmt.Sprintf(format, args...)
	return d.add(is)
}

// segIssuef adds an issue located at the start of segment i.
func (d *Document) segIssuef(sev Severity, code Code, syntax int, i int, format string, args ...any) bool {
	return d.issuef(sev, code, syntax, i, int(d.segs[i].off), format, args...)
}
