package credentials

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLA is how long the partner of a profile has to answer an accepted
// upload; an upload without its answer after that is overdue. In the
// profile file, under [profile.NAME]:
//
//	sla.contrl = "15m"   # the CONTRL (default 15m)
//	sla.ordrsp = "24h"   # the ORDRSP (default 24h)
//
// Durations are Go durations ("90s", "15m", "36h") or whole days ("2d").
type SLA struct {
	Contrl Duration `toml:"contrl,omitempty"`
	Ordrsp Duration `toml:"ordrsp,omitempty"`
}

// Default SLAs.
const (
	DefaultSLAContrl = 15 * time.Minute
	DefaultSLAOrdrsp = 24 * time.Hour
)

// maxSLA bounds an SLA: anything longer is a typo.
const maxSLA = 90 * 24 * time.Hour

// Duration is a TOML duration string.
type Duration time.Duration

// UnmarshalText reads "15m", "36h", "2d".
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return fmt.Errorf("%q is not a duration: write e.g. \"15m\", \"24h\" or \"2d\"", s)
		}
		*d = Duration(time.Duration(days) * 24 * time.Hour)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: write e.g. \"15m\", \"24h\" or \"2d\"", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as Go prints it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Effective returns the profile's SLA with the defaults filled in.
func (p Profile) Effective() (contrl, ordrsp time.Duration) {
	contrl, ordrsp = DefaultSLAContrl, DefaultSLAOrdrsp
	if p.SLA != nil && p.SLA.Contrl > 0 {
		contrl = time.Duration(p.SLA.Contrl)
	}
	if p.SLA != nil && p.SLA.Ordrsp > 0 {
		ordrsp = time.Duration(p.SLA.Ordrsp)
	}
	return contrl, ordrsp
}

// validateSLA checks both durations are positive and at most 90 days.
func (p Profile) validateSLA() error {
	if p.SLA == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		d    Duration
	}{{"sla.contrl", p.SLA.Contrl}, {"sla.ordrsp", p.SLA.Ordrsp}} {
		if f.d < 0 || time.Duration(f.d) > maxSLA {
			return &FieldError{Profile: p.Name, Field: f.name, Problem: fmt.Sprintf("%s must be between 1s and 90d (leave it out for the default)", time.Duration(f.d))}
		}
	}
	return nil
}

// encodeSLA writes the SLA as dotted keys of the profile's table (the
// encoder would put a nested table at the top level).
func encodeSLA(p Profile) string {
	if p.SLA == nil {
		return ""
	}
	var b strings.Builder
	if p.SLA.Contrl > 0 {
		fmt.Fprintf(&b, "sla.contrl = %q\n", time.Duration(p.SLA.Contrl).String())
	}
	if p.SLA.Ordrsp > 0 {
		fmt.Fprintf(&b, "sla.ordrsp = %q\n", time.Duration(p.SLA.Ordrsp).String())
	}
	return b.String()
}
