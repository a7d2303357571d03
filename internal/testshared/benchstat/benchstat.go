// Package benchstat holds the small statistics benchmarks report with
// ReportMetric.
package benchstat

import "slices"

// Median is the middle value of v (the upper one of an even count); v is
// not changed. v must not be empty.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
