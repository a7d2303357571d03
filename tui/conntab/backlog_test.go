package conntab

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
)

// scriptedPages is a backend whose Pages walk yields fixed pages, then
// err (nil: the walk ends).
type scriptedPages struct {
	*fakeBackend
	pages []*apiclient.Page
	err   error
}

func (b *scriptedPages) Pages(ctx context.Context, limit int) iter.Seq2[*apiclient.Page, error] {
	return func(yield func(*apiclient.Page, error) bool) {
		for _, p := range b.pages {
			if !yield(p, nil) {
				return
			}
		}
		if b.err != nil {
			yield(nil, b.err)
		}
	}
}

func withPages(t *testing.T, m Model, be *fakeBackend, pages []*apiclient.Page, err error) Model {
	t.Helper()
	m.be = &scriptedPages{fakeBackend: be, pages: pages, err: err}
	return m
}

// TestBacklogCountsRepeatedOnce: the same deliveryAttemptId on several
// pages is one due entry, and the backlog says the server repeated it
// (it said "12 due entries" for 2).
func TestBacklogCountsRepeatedOnce(t *testing.T) {
	m, be, _ := newTest(t, 2, 50)
	es := testEntries(2)
	pages := []*apiclient.Page{{Entries: es, HasMore: true, NextCursor: "c1"}}
	for range 5 {
		pages = append(pages, &apiclient.Page{HasMore: true, NextCursor: "c", Repeated: []string{es[0].DeliveryAttemptID, es[1].DeliveryAttemptID}})
	}
	pages[len(pages)-1].HasMore = false
	m = withPages(t, m, be, pages, nil)
	m, _ = press(t, m, "A")
	require.Equal(t, 2, m.table.Len())
	v := m.View()
	require.Contains(t, v, "2 due entries in 6 pages")
	require.Contains(t, v, fmt.Sprintf("the server listed 10 entries again on a later page (%s, %s, …); each delivery is counted once",
		es[0].DeliveryAttemptID, es[1].DeliveryAttemptID))
}

// TestBacklogKeepsPagesReadBeforeTheCap: a walk stopped at the page cap
// (a backlog of 100,000 and more) shows what it read, says it stopped,
// and reports the error; it used to throw everything away.
func TestBacklogKeepsPagesReadBeforeTheCap(t *testing.T) {
	m, be, _ := newTest(t, 250, 50)
	es := testEntries(250)
	var pages []*apiclient.Page
	for i := 0; i < 250; i += 50 {
		pages = append(pages, &apiclient.Page{Entries: es[i : i+50], HasMore: true, NextCursor: "c"})
	}
	capErr := fmt.Errorf("list mailbox: stopped after 5 pages: %w", apiclient.ErrPageCap)
	m = withPages(t, m, be, pages, capErr)
	m, notes := press(t, m, "A")
	require.True(t, m.Status().Backlog, "the backlog is shown")
	require.Equal(t, 250, m.table.Len())
	v := m.View()
	require.Contains(t, v, "250 due entries in 5 pages")
	require.Contains(t, v, "stopped after 5 pages: the server lists more; these totals count the entries read")
	require.Contains(t, fmt.Sprint(notes), "stopped after 5 pages", "and the error is in the footer")

	// Any other failure still leaves the page view as it was.
	m, _ = press(t, m, "A")
	m = withPages(t, m, be, pages[:1], fmt.Errorf("list mailbox: %w", apiclient.ErrPaging))
	m, _ = press(t, m, "A")
	require.False(t, m.Status().Backlog)
}

// BenchmarkBacklogMemory loads a backlog of 100,000 entries (1000 pages,
// the page cap at 100 per page) with A and reports the heap the tab
// retains for it: typical entries, and every field at the longest the
// client accepts (256-byte IDs, 64-byte informational fields).
func BenchmarkBacklogMemory(b *testing.B) {
	for _, bc := range []struct {
		name string
		max  bool
	}{{"typical", false}, {"max-fields", true}} {
		b.Run(bc.name, func(b *testing.B) {
			var retained float64
			for b.Loop() {
				m, be, _ := newTest(b, 100, 100)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				es := testEntries(100000)
				if bc.max {
					for i := range es {
						es[i].DeliveryAttemptID = fmt.Sprintf("%0256d", i)
						es[i].MessageType = strings.Repeat("M", apiclient.MaxInfoField)
						es[i].InterchangeID = strings.Repeat("I", apiclient.MaxInfoField)
						es[i].Status = strings.Repeat("S", apiclient.MaxInfoField)
					}
				}
				be.entries = es
				m, _ = press(b, m, "A")
				require.Equal(b, 100000, m.table.Len())
				be.entries, es = nil, nil
				runtime.GC()
				runtime.ReadMemStats(&after)
				retained = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
				runtime.KeepAlive(m)
			}
			b.ReportMetric(retained, "MB-held")
		})
	}
}
