package edi

import (
	"fmt"
	"sort"
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
	CodeEmptyInput          Code = "EMPTY_INPUT"             // the data is empty or only line breaks
	CodeBOM                 Code = "UTF8_BOM"                // a UTF-8 byte order mark precedes the data
	CodeJunk                Code = "JUNK_BEFORE_INTERCHANGE" // bytes that are not EDIFACT before UNA/UNB
	CodeTrailingData        Code = "TRAILING_DATA"           // padding (spaces, NUL, ^Z) after the last segment
	CodeUnterminated        Code = "SEGMENT_UNTERMINATED"    // the data ends inside a segment
	CodeDanglingRelease     Code = "RELEASE_DANGLING"        // the data ends with a release character that escapes nothing
	CodeReleaseInvalid      Code = "RELEASE_INVALID"         // release character before a character that needs no escaping
	CodeLineBreakInSegment  Code = "LINE_BREAK_IN_SEGMENT"   // CR/LF inside a segment (hard-wrapped file)
	CodeTagInvalid          Code = "TAG_INVALID"             // segment tag is not 3 upper-case letters/digits
	CodeSegmentEmpty        Code = "SEGMENT_EMPTY"           // two segment terminators in a row
	CodeTrailingSeparator   Code = "TRAILING_SEPARATOR"      // a segment or composite ends with a separator
	CodeUNAInvalid          Code = "UNA_INVALID"             // service string advice unusable or truncated
	CodeUNANotFollowedByUNB Code = "UNA_WITHOUT_UNB"         // UNA followed by something other than UNB
	CodeSyntaxUnknown       Code = "SYNTAX_IDENTIFIER_UNKNOWN"
	CodeSyntaxVersion       Code = "SYNTAX_VERSION_INVALID" // UNB syntax version not 1..4
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
}

// String formats the issue for logs: "error UNT_COUNT_MISMATCH at segment
// 12 (offset 345): ...".
func (i Issue) String() string {
	return fmt.Sprintf("%s %s at segment %d (offset %d): %s", i.Severity, i.Code, i.Segment, i.Offset, i.Message)
}

// Issues returns the issues in input order (by offset, then as found).
// The slice is the Document's own, shared by every caller: read it, never
// modify it (its capacity is clipped, so appending to it copies).
func (d *Document) Issues() []Issue { return d.issues[:len(d.issues):len(d.issues)] }

// sortIssues orders issues by offset, keeping the order of issues at the
// same offset. Parse calls it once, when every layer has added its issues:
// a Document has no mutators after Parse.
func (d *Document) sortIssues() {
	sort.SliceStable(d.issues, func(a, b int) bool { return d.issues[a].Offset < d.issues[b].Offset })
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

// issuef adds an issue at segment seg (or -1 with an explicit offset).
func (d *Document) issuef(sev Severity, code Code, syntax int, seg, off int, format string, args ...any) {
	d.issues = append(d.issues, Issue{
		Severity: sev, Code: code, Message: fmt.Sprintf(format, args...),
		Segment: seg, Offset: off, SyntaxError: syntax,
	})
}

// segIssuef adds an issue located at the start of segment i.
func (d *Document) segIssuef(sev Severity, code Code, syntax int, i int, format string, args ...any) {
	d.issuef(sev, code, syntax, i, int(d.segs[i].off), format, args...)
}
