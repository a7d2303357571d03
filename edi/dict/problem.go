package dict

import (
	"fmt"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ProblemKind classifies a structure problem found by a Matcher.
type ProblemKind uint8

// Kinds of structure problems.
const (
	// UnexpectedSegment: the segment is not allowed where it occurs (0085: 15).
	UnexpectedSegment ProblemKind = iota + 1
	// MissingSegment: a mandatory segment was skipped (0085: 13).
	MissingSegment
	// MissingGroup: a mandatory segment group was skipped (0085: 13).
	MissingGroup
	// TooManySegments: a segment occurs more often in a row than allowed (0085: 35).
	TooManySegments
	// TooManyGroups: a segment group occurs more often than allowed (0085: 36).
	TooManyGroups
)

// String names the kind for logs and JSON.
func (k ProblemKind) String() string {
	switch k {
	case UnexpectedSegment:
		return "unexpected-segment"
	case MissingSegment:
		return "missing-segment"
	case MissingGroup:
		return "missing-group"
	case TooManySegments:
		return "too-many-segment-repetitions"
	case TooManyGroups:
		return "too-many-group-repetitions"
	}
	return "unknown"
}

// Syntax error codes (UN/EDIFACT service code list 0085) for the problems
// a Matcher reports. Syntax versions 3 and 4 use the same values.
const (
	SyntaxErrorMissing                  = 13 // Missing
	SyntaxErrorNotSupportedInPosition   = 15 // Not supported in this position
	SyntaxErrorTooManySegmentRepetition = 35 // Too many segment repetitions
	SyntaxErrorTooManyGroupRepetition   = 36 // Too many segment group repetitions
)

// Problem is a structure problem of a message.
type Problem struct {
	Kind ProblemKind
	// Tag is the segment concerned: the unexpected or repeated segment, the
	// missing segment, or the trigger segment of a missing or repeated
	// group. For UnexpectedSegment it is payload data: sanitise before
	// display.
	Tag string
	// Group is "SG2" when the problem concerns a group or a segment in
	// one; empty at message level.
	Group string
	// Position is the table position of the entry concerned (120 for
	// 0120); 0 for a segment the table does not allow at that point.
	Position int
	// SyntaxError is the 0085 code that a CONTRL would report.
	SyntaxError int
	// Message says what is wrong, for people. It is safe to print.
	Message string
}

func (mt *Matcher) missingProblem(i int) Problem {
	e := &mt.msg.Entries[i]
	if mt.terse {
		if e.IsGroup() {
			return Problem{Kind: MissingGroup, Tag: e.Tag, Group: e.Path, Position: e.Position, SyntaxError: SyntaxErrorMissing}
		}
		return Problem{Kind: MissingSegment, Tag: e.Tag, Group: e.GroupName, Position: e.Position, SyntaxError: SyntaxErrorMissing}
	}
	where := ""
	if e.GroupName != "" {
		where = " in " + e.GroupName
	}
	if e.IsGroup() {
		return Problem{Kind: MissingGroup, Tag: e.Tag, Group: e.Path, Position: e.Position, SyntaxError: SyntaxErrorMissing,
			Message: fmt.Sprintf("mandatory segment group %s (starting with %s, position %04d)%s is missing", e.Path, e.Tag, e.Position, where)}
	}
	return Problem{Kind: MissingSegment, Tag: e.Tag, Group: e.GroupName, Position: e.Position, SyntaxError: SyntaxErrorMissing,
		Message: fmt.Sprintf("mandatory segment %s (position %04d)%s is missing", e.Tag, e.Position, where)}
}

func (mt *Matcher) tooManySegments(i int, count int32) Problem {
	e := &mt.msg.Entries[i]
	if mt.terse {
		return Problem{Kind: TooManySegments, Tag: e.Tag, Group: e.GroupName, Position: e.Position, SyntaxError: SyntaxErrorTooManySegmentRepetition}
	}
	where := ""
	if e.GroupName != "" {
		where = " in " + e.GroupName
	}
	return Problem{Kind: TooManySegments, Tag: e.Tag, Group: e.GroupName, Position: e.Position, SyntaxError: SyntaxErrorTooManySegmentRepetition,
		Message: fmt.Sprintf("%s repeated %d times%s, at most %d allowed (position %04d)", e.Tag, count, where, e.MaxRepeat, e.Position)}
}

func (mt *Matcher) tooManyGroups(i int, reps int32) Problem {
	e := &mt.msg.Entries[i]
	if mt.terse {
		return Problem{Kind: TooManyGroups, Tag: e.Tag, Group: e.Path, Position: e.Position, SyntaxError: SyntaxErrorTooManyGroupRepetition}
	}
	where := ""
	if e.GroupName != "" {
		where = " in " + e.GroupName
	}
	return Problem{Kind: TooManyGroups, Tag: e.Tag, Group: e.Path, Position: e.Position, SyntaxError: SyntaxErrorTooManyGroupRepetition,
		Message: fmt.Sprintf("segment group %s (%s) repeated %d times%s, at most %d allowed (position %04d)", e.Path, e.Tag, reps, where, e.MaxRepeat, e.Position)}
}

// unexpected explains why tag does not fit after the current entry: it
// belongs elsewhere in the message, or not at all.
func (mt *Matcher) unexpected(tag string, after string) Problem {
	p := Problem{Kind: UnexpectedSegment, Tag: tag, SyntaxError: SyntaxErrorNotSupportedInPosition}
	if f := &mt.frames[len(mt.frames)-1]; f.group >= 0 {
		p.Group = mt.msg.Entries[f.group].Path
	}
	if mt.terse {
		return p
	}
	shown := termsafe.String(tag)
	if i := mt.nearest(tag); i >= 0 {
		e := &mt.msg.Entries[i]
		p.Message = fmt.Sprintf("segment %s not allowed %s; %s has it at position %04d (%s)", shown, after, mt.msg.Label, e.Position, e.FullPath)
		return p
	}
	p.Message = fmt.Sprintf("segment %s not allowed %s; it is not part of %s", shown, after, mt.msg.Label)
	return p
}

// nearest returns the entry with the tag closest to where the matcher
// stands: inside the innermost open group that has one (the line item's
// own IMD rather than the header's), else the first in the message; -1
// when the structure has none. It only runs on the problem path.
func (mt *Matcher) nearest(tag string) int {
	entries := mt.msg.Entries
	for l := len(mt.frames) - 1; l >= 0; l-- {
		f := &mt.frames[l]
		start, end := int(f.group)+1, len(entries)
		if f.group >= 0 {
			end = entries[f.group].End
		}
		for i := start; i < end; i++ {
			if e := &entries[i]; !e.IsGroup() && e.Tag == tag {
				return i
			}
		}
	}
	return -1
}
