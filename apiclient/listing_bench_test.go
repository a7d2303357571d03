package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// BenchmarkHostileListing walks an endless mailbox (fresh cursor, 100
// entries per page, to the page cap) holding every entry and skipped
// entry the way `mailbox ls --all` does, and reports the heap they
// retain. huge-field: each entry's messageType is 30 KB (3 MB pages; the
// walk held gigabytes before fields were capped); max-valid: every
// field at the longest accepted length (256-byte IDs, 64-byte fields).
func BenchmarkHostileListing(b *testing.B) {
	for _, bc := range []struct {
		name  string
		pages int
		mt    string
		idLen int
	}{
		{"huge-field", 100, strings.Repeat("M", 30000), 8},
		{"max-valid", 1000, strings.Repeat("M", MaxInfoField), 256},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var n int
			pad := strings.Repeat("i", bc.idLen-8)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				data := make([]any, 100)
				for i := range data {
					e := entryJSON(fmt.Sprintf("%s%08d", pad, n*100+i))
					e["messageType"] = bc.mt
					e["interchangeId"], e["status"] = strings.Repeat("I", MaxInfoField), strings.Repeat("S", MaxInfoField)
					data[i] = e
				}
				writeJSON(w, 200, map[string]any{"data": data, "meta": map[string]any{"hasMore": true, "nextCursor": fmt.Sprint("c", n)}})
			}))
			b.Cleanup(srv.Close)
			c, err := New(Config{BaseURL: srv.URL, ConnectionID: testConn, Credentials: StaticCredentials{Mailbox: canaryCred},
				Limiter: rate.NewLimiter(rate.Inf, 0), MaxPages: bc.pages})
			require.NoError(b, err)
			var retained float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				var held []Entry
				var skipped []SkippedEntry
				for p, err := range c.Pages(context.Background(), 100) {
					if err != nil {
						require.ErrorIs(b, err, ErrPageCap)
						break
					}
					held = append(held, p.Entries...)
					skipped = append(skipped, p.Skipped...)
				}
				require.Equal(b, bc.pages*100, len(held)+len(skipped))
				runtime.GC()
				runtime.ReadMemStats(&after)
				retained = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
				runtime.KeepAlive(held)
				runtime.KeepAlive(skipped)
			}
			b.ReportMetric(retained, "MB-held")
			b.ReportMetric(retained/float64(bc.pages*100)*100000, "MB/100k-entries")
		})
	}
}
