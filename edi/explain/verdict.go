package explain

import (
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/human"
)

// Verdict is the outcome of validating a whole input: how many issues of
// each severity edi found.
type Verdict struct {
	Errors   int
	Warnings int
}

// VerdictOf counts the issues of doc by severity, the ones edi counted
// without listing them included (see edi.Document.IssueCounts).
func VerdictOf(doc *edi.Document) Verdict {
	var v Verdict
	v.Errors, v.Warnings = doc.IssueCounts()
	return v
}

// Valid reports whether there is no error: a strict recipient would
// accept the interchange (warnings are commonly accepted deviations).
func (v Verdict) Valid() bool { return v.Errors == 0 }

// Counts is "2 errors, 1 warning" ("no errors, no warnings" when clean).
func (v Verdict) Counts() string {
	e, w := "no errors", "no warnings"
	if v.Errors > 0 {
		e = human.Count(v.Errors, "error", "errors")
	}
	if v.Warnings > 0 {
		w = human.Count(v.Warnings, "warning", "warnings")
	}
	return e + ", " + w
}

// String is the verdict in words: "INVALID: 2 errors, 1 warning" or
// "VALID: no errors, no warnings".
func (v Verdict) String() string {
	if v.Valid() {
		return "VALID: " + v.Counts()
	}
	return "INVALID: " + v.Counts()
}
