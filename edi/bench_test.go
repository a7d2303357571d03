package edi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
)

// BenchSize is the size of the generated benchmark interchange: the upload
// limit of the Partner API.
const benchSize = 16 << 20

// GenerateOrders builds a deterministic ORDERS interchange of about size
// bytes: realistic EANCOM header segments and as many line items (LIN, PIA,
// IMD, QTY, DTM, PRI) as fit, one segment per line.
func generateOrders(size int, newline string) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	seg := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteString("'" + newline)
	}
	b.WriteString("UNA:+.? '" + newline)
	seg("UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+BENCH000001++ORDERS")
	seg("UNH+1+ORDERS:D:96A:UN:EAN008")
	seg("BGM+220+PO-BENCH-000001+9")
	seg("DTM+137:20250312:102")
	seg("DTM+2:20250320:102")
	seg("NAD+BY+4012345000009::9++M\xfcller Gro\xdfhandel GmbH+Hauptstra\xdfe 1+K\xf6ln++50667+DE")
	seg("NAD+SU+4098765000003::9")
	seg("NAD+DP+4012345000016::9")
	seg("CUX+2:EUR:9")
	n, lines := 8, 0 // UNH..CUX
	for b.Len() < size-200 {
		lines++
		seg("LIN+%d++%s:EN", lines, gtin13(400000000000+lines*7))
		seg("PIA+1+ART-%06d:SA", lines)
		seg("IMD+F++:::Article %d, 500 g ?+ 10%% extra", lines)
		seg("QTY+21:%d", 1+lines%48)
		seg("DTM+2:202503%02d:102", 1+lines%28)
		seg("PRI+AAA:%d.%02d", 1+lines%97, lines%100)
		n += 6
	}
	seg("UNS+S")
	seg("CNT+2:%d", lines)
	seg("UNT+%d+1", n+3) // + UNS, CNT, UNT
	seg("UNZ+1+BENCH000001")
	return b.Bytes()
}

var benchData = sync.OnceValue(func() []byte { return generateOrders(benchSize, "\n") })

// TestBenchmarkInputIsClean keeps the benchmark honest: the generated
// interchange is valid, so Parse does the full work of a good file.
func TestBenchmarkInputIsClean(t *testing.T) {
	data := generateOrders(1<<20, "\n")
	d := mustParse(t, data)
	require := func(ok bool, msg string) {
		t.Helper()
		if !ok {
			t.Fatal(msg)
		}
	}
	require(len(d.Issues()) == 0, fmt.Sprint(d.Issues()))
	require(len(d.Messages) == 1 && d.Messages[0].Segments() > 30000, "one big message")
	require(d.IndexBytes() <= 16*(d.Len()+2), "index sized exactly")
}

// reportPerSegment adds the index size and the allocation per segment.
// benchDocument measures parse on data in MB/s with the per-segment
// metrics of reportPerSegment.
func benchDocument(b *testing.B, data []byte, parse func([]byte) (*Document, error)) {
	b.SetBytes(int64(len(data)))
	reportPerSegment(b, func() *Document {
		d, err := parse(data)
		if err != nil {
			b.Fatal(err)
		}
		return d
	})
}

func reportPerSegment(b *testing.B, run func() *Document) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var d *Document
	cpu0 := cpuTime()
	for b.Loop() {
		d = run()
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	if cpu > 0 {
		b.ReportMetric(float64(len(d.Data()))/(float64(cpu)/float64(b.N)/1e9)/1e6, "cpu-MB/s")
	}
	segs := float64(d.Len())
	b.ReportMetric(float64(d.IndexBytes())/segs, "index-B/seg")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/segs, "alloc-B/seg")
	b.ReportMetric(segs, "segments")
}

// BenchmarkIndex measures the indexer (two halves at once, see
// indexSplit) plus envelope structure on a 16 MiB ORDERS interchange with
// ~110k line items.
func BenchmarkIndex(b *testing.B) {
	data := benchData()
	benchDocument(b, data, index)
}

// BenchmarkIndexSinglePass is BenchmarkIndex in one pass on one
// goroutine (inputs below splitMin), to show what the split saves.
func BenchmarkIndexSinglePass(b *testing.B) {
	data := benchData()
	benchDocument(b, data, func(d []byte) (*Document, error) { return indexWith(d, (*scanner).run) })
}

// BenchmarkIndexOneLine is the same interchange without line breaks.
func BenchmarkIndexOneLine(b *testing.B) {
	data := generateOrders(benchSize, "")
	benchDocument(b, data, index)
}

// BenchmarkParse adds envelope validation: segment shape checks and the
// character-level check of every byte against UNOC.
func BenchmarkParse(b *testing.B) {
	data := benchData()
	benchDocument(b, data, Parse)
}

// BenchmarkParseStructureOnly is BenchmarkParse for the tracking index
// and the link input: no character or element checks.
func BenchmarkParseStructureOnly(b *testing.B) {
	benchDocument(b, benchData(), func(data []byte) (*Document, error) {
		return ParseContext(context.Background(), data, Options{StructureOnly: true})
	})
}

// BenchmarkSegmentValues reads typical summary values from every LIN.
func BenchmarkSegmentValues(b *testing.B) {
	d, err := Parse(benchData())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := 0; i < d.Len(); i++ {
			if d.segs[i].tag == [3]byte{'L', 'I', 'N'} {
				n += len(d.Segment(i).Bytes(3, 1))
			}
		}
	}
	_ = n
}

// TestWriteBenchFile writes the benchmark interchange to $EDI_BENCH_FILE
// (skipped otherwise), for measuring `b2bx parse` end to end:
//
//	EDI_BENCH_FILE=/tmp/orders16.edi go test ./edi -run TestWriteBenchFile
func TestWriteBenchFile(t *testing.T) {
	path := os.Getenv("EDI_BENCH_FILE")
	if path == "" {
		t.Skip("set EDI_BENCH_FILE to write the 16 MiB benchmark interchange")
	}
	if err := os.WriteFile(path, benchData(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkMessageLayer measures the message layer alone on an indexed
// document: structure matching with path ids and the summaries. Parse
// runs it next to the envelope checks on a second goroutine.
func BenchmarkMessageLayer(b *testing.B) {
	d := benchIndexed(b)
	b.ReportAllocs()
	for b.Loop() {
		if log := d.checkMessages(); len(log.issues) != 0 {
			b.Fatal(log.issues[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.Len()), "ns/segment")
}

// BenchmarkEnvelopeChecks measures validate alone (segment shape and
// characters), the other half of Parse's two goroutines.
func BenchmarkEnvelopeChecks(b *testing.B) {
	d := benchIndexed(b)
	b.ReportAllocs()
	for b.Loop() {
		d.issueLog = issueLog{issues: d.issues[:0]}
		d.validate()
	}
}

// BenchmarkParseSequential is BenchmarkParse with the envelope checks and
// the message layer on one goroutine, to show what the second one saves.
func BenchmarkParseSequential(b *testing.B) {
	defer func(n int) { parallelMin = n }(parallelMin)
	parallelMin = int(^uint(0) >> 1)
	data := benchData()
	benchDocument(b, data, Parse)
}

// BenchmarkAnalyse measures what Parse does after indexing: the envelope
// checks and the message layer, with the character check on a second
// goroutine from parallelMin segments. Unlike BenchmarkParse it allocates
// little, so the collector does not take the second core.
func BenchmarkAnalyse(b *testing.B) { benchAnalyse(b, parallelMin) }

// BenchmarkAnalyseSequential is BenchmarkAnalyse on one goroutine.
func BenchmarkAnalyseSequential(b *testing.B) { benchAnalyse(b, int(^uint(0)>>1)) }

func benchAnalyse(b *testing.B, min int) {
	defer func(n int) { parallelMin = n }(parallelMin)
	parallelMin = min
	d := benchIndexed(b)
	for b.Loop() {
		d.issueLog = issueLog{issues: d.issues[:0]}
		if err := d.analyse(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkElementChecks measures the element checks (representation and
// code lists) alone, on one goroutine, over the whole benchmark file.
func BenchmarkElementChecks(b *testing.B) {
	d := benchIndexed(b)
	b.ReportAllocs()
	for b.Loop() {
		if log := d.elementIssues(0, d.Len()); len(log.issues) != 0 {
			b.Fatal(log.issues[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.Len()), "ns/segment")
}

// gtin13 is n as 12 digits with its GS1 check digit: a valid GTIN-13.
func gtin13(n int) string {
	s := fmt.Sprintf("%012d", n)
	d, _ := GS1CheckDigit(s)
	return s + string(d)
}

// benchIndexed is the benchmark file indexed, its size set as b's bytes
// per op.
func benchIndexed(b *testing.B) *Document {
	b.Helper()
	d, err := index(benchData())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(d.Data())))
	return d
}
