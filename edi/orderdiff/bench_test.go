package orderdiff

import (
	"strconv"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

// BenchmarkCompare diffs an ORDRSP of 50,000 lines (about 2 MB) against
// its ORDERS; parsing is outside the timing.
func BenchmarkCompare(b *testing.B) {
	const n = 50000
	var ordLines, rspLines []string
	for i := 1; i <= n; i++ {
		num := strconv.Itoa(i)
		ordLines = append(ordLines, "LIN+"+num+"++G"+num+":EN", "QTY+21:10", "PRI+AAA:1.25")
		action, qty := "5", "10"
		if i%100 == 0 {
			action, qty = "3", "9"
		}
		rspLines = append(rspLines, "LIN+"+num+"+"+action+"+G"+num+":EN", "QTY+113:"+qty, "PRI+AAA:1.25")
	}
	ob, rb := order(ordLines...), response("4", rspLines...)
	od, err := edi.Parse(ob)
	if err != nil {
		b.Fatal(err)
	}
	rd, err := edi.Parse(rb)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(ob) + len(rb)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Compare(od, 0, rd, 0)
		if err != nil || d.Counts.Changed != n/100 {
			b.Fatal(err, d.Counts)
		}
	}
}
