package eventview

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigBatch writes a batch of n events: n/2 streams, each with a gap
// (sequences 1 and 3), so there are n/2 parked events, n/2 gap findings
// and n/2 streams with a problem.
func bigBatch(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		seq := 1 + 2*(i%2)
		fmt.Fprintf(&b, `{"specversion":"2.0","id":"evt-%d","type":"nutrab2b.orders.confirmed.v2","source":"https://partner.example.com/b2b",`+
			`"subject":"PO-%d","time":"2025-03-12T10:31:00Z","sender":"4012345000009","receiver":"4000001000005","correlationid":"c-%d",`+
			`"idempotencykey":"4012345000009:PO-%d:confirmed:%d","sequence":%d,"env":"prod","data":{}}`, i, i/2, i/2, i/2, seq, seq)
	}
	b.WriteString("]")
	p := filepath.Join(tb.TempDir(), "big.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkKeypress is one key (Update) and the frame (View) with 10,000
// events loaded (5,000 findings and streams), in the findings and in the
// streams view.
func BenchmarkKeypress(b *testing.B) {
	m := opened(b, bigBatch(b, 10000), 120, 40)
	if len(m.rep.findings) < 5000 || len(m.rep.streams) != 5000 {
		b.Fatalf("%d findings, %d streams", len(m.rep.findings), len(m.rep.streams))
	}
	for _, sec := range []struct {
		name string
		tabs int
	}{{"findings", 0}, {"streams", 1}} {
		b.Run(sec.name, func(b *testing.B) {
			m := m
			for i := 0; i < sec.tabs; i++ {
				m, _ = m.Update(keyMsg("tab"))
			}
			down, up := keyMsg("j"), keyMsg("k")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := down
				if i%2 == 1 {
					k = up
				}
				m, _ = m.Update(k)
				_ = m.View()
			}
		})
	}
}
