package explain

import (
	"strconv"

	"github.com/nutrab2b/b2bx/edi"
)

// FieldPosition shows where a value sits in its segment as the
// directories print it: "020" for a simple element, "020:1" for a
// component, "020:1*2" for a component of repetition 2.
func FieldPosition(f edi.Field) string {
	pos := f.Position
	if f.Component > 0 {
		pos += ":" + strconv.Itoa(f.Component)
	}
	if f.Repetition > 0 {
		pos += "*" + strconv.Itoa(f.Repetition)
	}
	return pos
}

// FieldRef is the directory reference ("C082.3039"), or "?" when the
// directory does not define the position.
func FieldRef(f edi.Field) string {
	if f.Ref == "" {
		return "?"
	}
	return f.Ref
}

// FieldName is the directory's name for the value, or a note that the
// data has more than the segment defines.
func FieldName(f edi.Field) string {
	if f.Name == "" {
		return "(not in the directory's segment)"
	}
	return f.Name
}

// FieldNameIn is FieldName for a field of info: empty when no directory
// describes the segment at all (info.Unknown says so once, instead of
// every value saying it is not in the directory's segment).
func FieldNameIn(info edi.SegmentInfo, f edi.Field) string {
	if info.Unknown != "" && f.Name == "" {
		return ""
	}
	return FieldName(f)
}

// FieldValue is the value, sanitised, with the code's meaning for coded
// elements: "BY = Buyer", or "ZZZ (code not in the list)".
func FieldValue(f edi.Field) string {
	value := f.Display()
	switch {
	case f.CodeName != "":
		value += " = " + f.CodeName
	case f.CodeList:
		value += " (code not in the list)"
	}
	return value
}
