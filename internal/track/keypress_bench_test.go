package track_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/find"
)

// BenchmarkKeypressWhileBuilding: j/k on the find results (200
// conversations, Update + View at 160x48) while the index of
// B2BX_BENCH_KEYPRESS_DELIVERIES stored deliveries is rebuilt again and
// again in the background, as the app's first sync would. Reports the
// keypress p95 and max.
func BenchmarkKeypressWhileBuilding(b *testing.B) {
	n := 20000
	dir := b.TempDir()
	track.WriteStore(b, dir, n)
	x, err := track.Open(b.Context(), track.Options{Dir: dir})
	require.NoError(b, err)
	defer x.Close()
	_, err = x.Sync(b.Context())
	require.NoError(b, err)
	q, err := track.ParseQuery("gln:4012345000009")
	require.NoError(b, err)
	res, err := x.Find(b.Context(), q, nil)
	require.NoError(b, err)
	require.NotEmpty(b, res.Conversations)

	c := common.New()
	c.Width, c.Height = 160, 48
	src := staticSource{res}
	r := find.New(c, 1, src, "gln:4012345000009", find.Openers{})
	cmd := r.Init() // the query runs from Init, as on a stack
	r.SetSize(160, 46)
	r.Update(cmd())

	ctx, cancel := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the build, over and over
		defer wg.Done()
		for ctx.Err() == nil {
			_, _ = x.Rebuild(ctx, "benchmark")
		}
	}()
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("j")}, {Type: tea.KeyRunes, Runes: []rune("k")}}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		r.Update(keys[i%2])
		_ = r.View()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	cancel()
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

type staticSource struct{ res track.Result }

func (s staticSource) Find(context.Context, track.Query) (track.Result, track.Stats, error) {
	return s.res, track.Stats{}, nil
}

func (s staticSource) Timeline(context.Context, track.Conversation) []track.Step { return nil }
