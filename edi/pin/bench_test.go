package pin

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

// bigOrders is an ORDERS of about size bytes (LIN/QTY/PRI lines) and a
// copy with one QTY changed in the middle: the usual fix.
func bigOrders(size int) (a, b []byte) {
	var w bytes.Buffer
	w.WriteString("UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+ICR0042'UNH+M1+ORDERS:D:96A:UN'BGM+220+PO-1+9'")
	n := 0
	for w.Len() < size {
		n++
		fmt.Fprintf(&w, "LIN+%d++4000862141404:EN'QTY+21:%d'PRI+AAA:1.25'", n, n%90+1)
	}
	fmt.Fprintf(&w, "UNS+S'UNT+%d+M1'UNZ+1+ICR0042'", 3*n+4)
	a = w.Bytes()
	mid := fmt.Sprintf("LIN+%d++4000862141404:EN'QTY+21:%d'", n/2, (n/2)%90+1)
	b = bytes.Replace(a, []byte(mid), []byte(fmt.Sprintf("LIN+%d++4000862141404:EN'QTY+21:%d'", n/2, 999)), 1)
	return a, b
}

// BenchmarkDiffSegments16MiB: the review's segment diff of a 16 MiB
// ORDERS against its fix (one segment changed): the common start and end
// are skipped, so it is linear in the segments.
func BenchmarkDiffSegments16MiB(b *testing.B) {
	x, y := bigOrders(16 << 20)
	da, err := edi.Parse(x)
	if err != nil {
		b.Fatal(err)
	}
	db, err := edi.Parse(y)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		if d := DiffSegments(da, db); len(d) != 1 {
			b.Fatalf("%d changes", len(d))
		}
	}
}
