// Package dict is the EDIFACT dictionary of b2bx: names of segments,
// composites, data elements and codes, and the message structures of
// every D.96A message (125 types), ORDERS, ORDRSP and APERAK of D.24A and CONTRL (syntax 3 and 4),
// with a structure matcher that assigns every segment of a message its
// segment group path and reports structure errors.
//
// The tables are generated (go generate; see internal/gen) from the
// official UN/EDIFACT D.96A directory and the D.24A and service directory
// XML, and compiled into the binary as static data: looking something up
// costs a binary search, and nothing is parsed or built at start-up.
//
// D.25A is not published in machine-readable form; D.25A messages are
// described and checked with the D.24A tables, and DirectoryFor and
// LookupMessage say so in a note that callers must show.
//
// Text returned by this package comes from the directories, not from the
// payload, except where a Problem message quotes a segment tag; those tags
// pass through the terminal sanitiser.
package dict

//go:generate go run ./internal/gen

// Directory identifies one of the generated directories.
type Directory uint8

// The directories. The zero value is no directory: lookups in it fail.
const (
	// D96A is the UN/EDIFACT D.96A directory (UNTDID, 1996).
	D96A Directory = iota + 1
	// D24A is the UN/EDIFACT D.24A directory, also used for D.25A.
	D24A
	// Service3 holds the service segments of syntax version 3 (ISO 9735
	// 1988/1992): UNB, UNH, UCI... and their elements and codes.
	Service3
	// Service4 holds the service segments of syntax version 4 (ISO 9735:2002).
	Service4
)

// String returns the directory's name as people write it: "D.96A",
// "D.24A", "service syntax 3", "service syntax 4".
func (d Directory) String() string {
	switch d {
	case D96A:
		return "D.96A"
	case D24A:
		return "D.24A"
	case Service3:
		return "service syntax 3"
	case Service4:
		return "service syntax 4"
	}
	return "no directory"
}

// D25ANote is the note DirectoryFor and LookupMessage give for D.25A.
const D25ANote = "D.25A checked with the D.24A structure"

// DirectoryFor returns the directory for a message version and release
// (UNH S009 0052 and 0054): "D","96A" gives D96A, "D","24A" gives D24A,
// and "D","25A" gives D24A with the note D25ANote, which the caller must
// show next to anything derived from it. Other releases are not available
// (ok false).
func DirectoryFor(version, release string) (d Directory, note string, ok bool) {
	if version != "D" {
		return 0, "", false
	}
	switch release {
	case "96A":
		return D96A, "", true
	case "24A":
		return D24A, "", true
	case "25A":
		return D24A, D25ANote, true
	}
	return 0, "", false
}

// ServiceDirectory returns the service directory for an interchange's
// syntax version number (UNB S001 0002): Service4 for 4 and above,
// Service3 otherwise (versions 1 and 2 use the version 3 segments, which
// extend them compatibly).
func ServiceDirectory(syntaxVersion int) Directory {
	if syntaxVersion >= 4 {
		return Service4
	}
	return Service3
}
