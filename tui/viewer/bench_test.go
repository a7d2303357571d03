package viewer

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
)

// benchSize is the Partner API's upload limit: 16 MiB, ~715k segments.
const benchSize = 16 << 20

var benchFile struct {
	once sync.Once
	path string
	err  error
}

// bigFile writes the generated 16 MiB interchange once per process.
func bigFile(b *testing.B) string {
	b.Helper()
	benchFile.once.Do(func() {
		dir, err := os.MkdirTemp("", "b2bx-viewer-bench-")
		if err != nil {
			benchFile.err = err
			return
		}
		benchFile.path = filepath.Join(dir, "big.edi")
		benchFile.err = os.WriteFile(benchFile.path, generateOrders(benchSize), 0o600)
	})
	if benchFile.err != nil {
		b.Fatal(benchFile.err)
	}
	return benchFile.path
}

// BenchmarkKeypress is one key through Update plus the View of the next
// frame at 715k segments, 160x50 (goal: ≤ 2 ms).
func BenchmarkKeypress(b *testing.B) {
	path := bigFile(b)
	for _, bc := range []struct {
		name string
		keys []string
	}{
		{"down", []string{"j"}},
		{"pagedown", []string{"pgdown"}},
		{"ends", []string{"G", "g"}},
		{"raw", []string{"r"}},
		{"issues", []string{"i"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := open(b, path).SetSize(160, 50)
			if m.doc().Len() < 700_000 {
				b.Fatalf("only %d segments", m.doc().Len())
			}
			m = press(b, m, "G", "g", "j", "j") // warm caches as a session would
			_ = m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m, _ = m.Update(keyMsg(bc.keys[i%len(bc.keys)]))
				if len(m.View()) == 0 {
					b.Fatal("empty frame")
				}
			}
		})
	}
}

// BenchmarkSearchStep is one bounded search step on the 16 MiB file (the
// time a search may hold up the program between two keys).
func BenchmarkSearchStep(b *testing.B) {
	m := open(b, bigFile(b)).SetSize(160, 50)
	m = press(b, m, "/")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _ = m.startSearch("nomatch", +1, m.cursor)
		m, _ = m.Update(searchStepMsg{id: m.search.id})
	}
}

// BenchmarkOpenFirstFrame opens the 16 MiB file (map, parse, index the
// issues) and draws the first frame, as `b2bx view` does (goal: ≤ 150 ms).
func BenchmarkOpenFirstFrame(b *testing.B) {
	path := bigFile(b)
	b.SetBytes(benchSize)
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		openFirstFrame(b, path)
	}
	b.StopTimer()
	// CPU time (both cores) per open: on a VM shared with other work the
	// wall time above varies with the neighbours, this much less.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func openFirstFrame(b testing.TB, path string) {
	gc := debug.SetGCPercent(-1) // as b2bx view opens files
	src, err := Open(path)
	debug.SetGCPercent(gc)
	if err != nil {
		b.Fatal(err)
	}
	m := New(testCommon(), src, Options{}).SetSize(160, 50)
	if len(m.View()) == 0 {
		b.Fatal("empty frame")
	}
	_ = m.Close()
}

// BenchmarkOpenPeakMemory runs open-to-first-frame in a fresh process
// and reports its peak resident memory (VmHWM: the mapped file's pages,
// the index, the runtime and the test binary) against the file size
// (goal: ≤ 3×). The child reads its own VmHWM: the parent's getrusage
// would count the parent's memory too (the child shares it until exec).
func BenchmarkOpenPeakMemory(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self/status")
	}
	path := bigFile(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var peak int64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenFirstFrameChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "B2BX_VIEWER_CHILD_FILE="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		m := regexp.MustCompile(`peak-kB=(\d+)`).FindSubmatch(out)
		if m == nil {
			b.Fatalf("child printed no peak:\n%s", out)
		}
		kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
		peak = max(peak, kb*1024)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(peak)/float64(fi.Size()), "x-file-size")
}

// TestOpenFirstFrameChild is BenchmarkOpenPeakMemory's child process: it
// opens the file, draws the first frame and prints its peak RSS.
func TestOpenFirstFrameChild(t *testing.T) {
	path := os.Getenv("B2BX_VIEWER_CHILD_FILE")
	if path == "" {
		t.Skip("only run by BenchmarkOpenPeakMemory")
	}
	openFirstFrame(t, path)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmHWM in:\n%s", status)
	}
	t.Logf("peak-kB=%s", m[1])
}
