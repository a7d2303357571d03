package mig

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

// bigOrders is one interchange of ORDERS just under 16 MiB, the shape of
// internal/orders' pre-flight benchmark: parties, dates and 20 lines per
// message, clean against the demo rules.
func bigOrders() []byte {
	var b bytes.Buffer
	b.WriteString("UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+BIG0001'")
	n := 0
	for b.Len() < 16<<20-64*1024 {
		n++
		fmt.Fprintf(&b, "UNH+%d+ORDERS:D:96A:UN:EAN008'BGM+220+PO-%d+9'DTM+137:20250312:102'DTM+2:20250320:102'NAD+BY+4012345000009::9'NAD+SU+4098765000003::9'NAD+DP+4012345000016::9'", n, n)
		for l := 1; l <= 20; l++ {
			fmt.Fprintf(&b, "LIN+%d++%013d:SRS'QTY+21:%d'PRI+AAA:1.25'", l, l, l)
		}
		fmt.Fprintf(&b, "UNS+S'CNT+2:20'UNT+%d+%d'", 7+60+3, n)
	}
	fmt.Fprintf(&b, "UNZ+%d+BIG0001'", n)
	return b.Bytes()
}

// BenchmarkCheck16MiB: the demo partner's rules (every kind) over the
// largest ORDERS the Partner API takes, parsed once: the rules' own cost
// in the pre-flight.
func BenchmarkCheck16MiB(b *testing.B) {
	data := bigOrders()
	doc, err := edi.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	rs, err := Load(demo)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if fs := rs.Check(doc); len(fs) != 0 {
			b.Fatal(texts(fs))
		}
	}
}
