package orders

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/edi/mig"
)

// bigOrders is one interchange of ORDERS messages just under the 16 MiB
// upload limit, each with parties, dates and lines of valid GTINs: the
// largest file the pre-flight sees.
func bigOrders() []byte {
	var b bytes.Buffer
	b.WriteString("UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+BIG0001'")
	n := 0
	for b.Len() < MaxSize-64*1024 {
		n++
		fmt.Fprintf(&b, "UNH+%d+ORDERS:D:96A:UN:EAN008'BGM+220+PO-%d+9'DTM+137:20250312:102'DTM+2:20250320:102'NAD+BY+4012345000009::9'NAD+SU+4098765000003::9'NAD+DP+4012345000016::9'", n, n)
		for l := 1; l <= 20; l++ {
			g := fmt.Sprintf("%012d", 400000000000+n*20+l)
			d := checkDigit(g)
			fmt.Fprintf(&b, "LIN+%d++%s%c:SRS'QTY+21:%d'PRI+AAA:1.25'", l, g, d, l)
		}
		fmt.Fprintf(&b, "UNS+S'CNT+2:20'UNT+%d+%d'", 7+60+3, n)
	}
	fmt.Fprintf(&b, "UNZ+%d+BIG0001'", n)
	return b.Bytes()
}

// BenchmarkPreflight16MiB: the pre-flight of the largest ORDERS the
// Partner API takes (hash, parse, report).
func BenchmarkPreflight16MiB(b *testing.B) {
	data := bigOrders()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		cpu.n++
		if p := InspectBytes("big.edi", data); p.Blocked() {
			b.Fatal(p.Problem)
		}
	}
	cpu.report(b)
}

// cpuMeter reports the process's CPU time per iteration ("cpu-ms/op"):
// on a machine shared with other work the wall time mostly measures the
// wait for a core, the CPU time what the pre-flight costs.
type cpuMeter struct {
	start time.Duration
	n     int
}

func startCPU() *cpuMeter { return &cpuMeter{start: cpuTime()} }

func (c *cpuMeter) report(b *testing.B) {
	if c.n > 0 {
		b.ReportMetric(float64(cpuTime()-c.start)/float64(c.n)/1e6, "cpu-ms/op")
	}
}

// checkDigit is the GS1 check digit of the digits s (kept here, not
// edi's, so the benchmark runs unchanged on older trees for a baseline).
func checkDigit(s string) byte {
	sum := 0
	for i := len(s) - 1; i >= 0; i-- {
		w := 1
		if (len(s)-1-i)%2 == 0 {
			w = 3
		}
		sum += int(s[i]-'0') * w
	}
	return byte('0' + (10-sum%10)%10)
}

// BenchmarkPreflight16MiBWithMIG: the same with the demo partner's rules
// loaded (every kind of rule; the file is clean against them).
func BenchmarkPreflight16MiBWithMIG(b *testing.B) {
	data := bigOrders()
	rs, err := mig.Load(filepath.Join("..", "..", "testdata", "mig", "demo.toml"))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Directory: "D.96A", Rules: rs}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		cpu.n++
		p := InspectBytesWith("big.edi", data, opts)
		if p.Blocked() || len(p.Warnings()) > 0 {
			b.Fatal(p.Problem, p.Warnings())
		}
	}
	cpu.report(b)
}

// BenchmarkPreflight16MiBMIGRatio runs the pre-flight without and with
// the demo partner's rules alternately, so both see the same load on a
// shared machine, and reports what the rules cost: "mig-ratio" is the
// CPU time with the rules over the CPU time without, "wall-ratio" the
// same for the wall time.
func BenchmarkPreflight16MiBMIGRatio(b *testing.B) {
	data := bigOrders()
	rs, err := mig.Load(filepath.Join("..", "..", "testdata", "mig", "demo.toml"))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Directory: "D.96A", Rules: rs}
	var without, with, wallWithout, wallWith time.Duration
	for b.Loop() {
		c0, w0 := cpuTime(), time.Now()
		if p := InspectBytes("big.edi", data); p.Blocked() {
			b.Fatal(p.Problem)
		}
		c1, w1 := cpuTime(), time.Now()
		if p := InspectBytesWith("big.edi", data, opts); p.Blocked() || len(p.Warnings()) > 0 {
			b.Fatal(p.Problem, p.Warnings())
		}
		c2, w2 := cpuTime(), time.Now()
		without, with = without+c1-c0, with+c2-c1
		wallWithout, wallWith = wallWithout+w1.Sub(w0), wallWith+w2.Sub(w1)
	}
	if without > 0 && wallWithout > 0 {
		b.ReportMetric(float64(with)/float64(without), "mig-ratio")
		b.ReportMetric(float64(wallWith)/float64(wallWithout), "wall-ratio")
	}
}
