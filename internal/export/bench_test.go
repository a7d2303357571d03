package export

import (
	"io"
	"strconv"
	"testing"
)

// BenchmarkEncodeCSV100k: a 100,000-row backlog (7 columns) as CSV.
func BenchmarkEncodeCSV100k(b *testing.B) { benchEncode(b, EncodeCSV) }

// BenchmarkEncodeJSON100k: the same table as JSON.
func BenchmarkEncodeJSON100k(b *testing.B) { benchEncode(b, EncodeJSON) }

func benchEncode(b *testing.B, enc func(io.Writer, Table) error) {
	t := Table{Name: "backlog", Columns: []string{"deliveryAttemptId", "interchangeId", "messageType", "payloadSize", "payloadSha256", "status", "createdAt"}}
	for i := range 100_000 {
		n := strconv.Itoa(i)
		t.Rows = append(t.Rows, []string{"0f8c2a4e-1d2b-4c3a-9e8f-" + n, "ic-" + n, "ORDRSP", n, "5ddbacd51d1e40bda1494f8aaf7e10527dac88307155919c5508da56f249043a", "due", "2026-12-01T23:41:06Z"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := enc(io.Discard, t); err != nil {
			b.Fatal(err)
		}
	}
}
