package spool

import (
	"fmt"
	"os"
	"testing"
)

// BenchmarkStageAndCommit16MiB: the durable-store share of a fetch —
// streaming 16 MiB into a staged file in 256 KiB writes (as the client
// does), then fsync, rename, directory fsync and the sidecar — with early
// writeback (the default) and with everything left to the final fsync.
func BenchmarkStageAndCommit16MiB(b *testing.B) {
	for _, tc := range []struct {
		name  string
		chunk int64
	}{{"writeback=4MiB", 4 << 20}, {"writeback=off", 1 << 62}} {
		b.Run(tc.name, func(b *testing.B) {
			old := writebackChunk
			writebackChunk = tc.chunk
			defer func() { writebackChunk = old }()
			benchStageAndCommit(b)
		})
	}
}

func benchStageAndCommit(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 256<<10)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	const size = 16 << 20
	meta := Meta{Size: size, SHA256: fmt.Sprintf("%064x", 1)}
	b.SetBytes(size)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("da-%d", i)
		w, err := s.Begin("c", id)
		if err != nil {
			b.Fatal(err)
		}
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				b.Fatal(err)
			}
		}
		st, err := w.Commit(meta)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = os.Remove(st.Path)
		b.StartTimer()
	}
}
