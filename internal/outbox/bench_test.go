package outbox

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/who"
)

// nopRemote takes everything at once: what is measured is the outbox.
type nopRemote struct{}

func (nopRemote) Ping(context.Context) error { return nil }
func (nopRemote) PushDelivery(context.Context, string, spool.Stored, []byte, who.Who) error {
	return nil
}
func (nopRemote) PushUpload(context.Context, string, spool.UploadRecord, []byte, who.Who) error {
	return nil
}
func (nopRemote) PushSeen(context.Context, string, spool.SeenRecord, who.Who) error { return nil }
func (nopRemote) PushCapture(context.Context, string, []byte, who.Who) error        { return nil }

// BenchmarkEnqueue: what the download path pays per delivery stored
// (and again per receipt): one entry marshalled and appended.
func BenchmarkEnqueue(b *testing.B) {
	box, err := Open(filepath.Join(b.TempDir(), "outbox"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer box.Close()
	st := &spool.Stored{Meta: spool.Meta{ConnectionID: "conn-1", DeliveryAttemptID: "0f9c2a7e-3b1d-4c55-9e0a-8d7b6c5a4f3e",
		SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", ReceiptID: "rcpt-1"}}
	root := "/home/alice/.local/share/b2bx"
	b.ReportAllocs()
	for b.Loop() {
		box.Enqueue(DeliveryEntry(root, st))
	}
}

// BenchmarkPush: the pusher's throughput to a team store that costs
// nothing: n small deliveries (1.5 KB) queued, then pushed (each
// sidecar read, payload read and its SHA-256 checked, ledger line).
func BenchmarkPush(b *testing.B) {
	for _, size := range []int{1500, 16 << 20} {
		n := 500
		if size > 1<<20 {
			n = 4
		}
		b.Run(fmt.Sprintf("payload=%d", size), func(b *testing.B) {
			data := make([]byte, size)
			for i := range data {
				data[i] = byte('A' + i%26)
			}
			var total time.Duration
			done := 0
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				store, err := spool.Open(filepath.Join(dir, "spool"))
				if err != nil {
					b.Fatal(err)
				}
				box, err := Open(Dir(dir), Options{})
				if err != nil {
					b.Fatal(err)
				}
				box.Attach(store)
				for i := range n {
					storeOne(b, store, fmt.Sprintf("da-%05d", i), data)
				}
				b.StartTimer()
				start := time.Now()
				p := box.Start(b.Context(), PushOptions{Remote: nopRemote{}, Poll: -1})
				st := p.Drain(b.Context())
				total += time.Since(start)
				b.StopTimer()
				p.Stop()
				_ = box.Close()
				if st.Waiting != 0 || st.Pushed != n {
					b.Fatalf("pushed %d of %d", st.Pushed, n)
				}
				done += n
				b.StartTimer()
			}
			b.ReportMetric(float64(done)/total.Seconds(), "deliveries/s")
			b.ReportMetric(float64(done)*float64(size)/total.Seconds()/1e6, "MB/s")
		})
	}
}

func storeOne(b *testing.B, s *spool.Store, id string, data []byte) {
	w, err := s.Begin("conn-1", id)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(spool.Meta{ConnectionID: "conn-1", DeliveryAttemptID: id, Size: int64(len(data)), SHA256: sha(data)}); err != nil {
		b.Fatal(err)
	}
}
