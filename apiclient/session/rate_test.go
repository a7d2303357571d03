package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
)

func TestTheProfileRateIsTheClientLimit(t *testing.T) {
	def := limiterFor(Target{BaseURL: "https://a.example", ConnectionID: "c-0"}, nil)
	require.Equal(t, rate.Limit(apiclient.DefaultRate), def.Limit(), "no rate: the contract's default")
	require.Equal(t, apiclient.DefaultBurst, def.Burst())
	l := limiterFor(Target{BaseURL: "https://a.example", ConnectionID: "c-1", Rate: 400}, nil)
	require.NotNil(t, l)
	require.Equal(t, rate.Limit(400), l.Limit())
	require.Equal(t, 40, l.Burst(), "a tenth of a second's worth")
	// one partner's connections share one limiter: the limit is per partner
	acme := func(conn string, n int) Target {
		return Target{BaseURL: "https://a.example", ConnectionID: conn, Partner: "ACME GmbH", Rate: n}
	}
	require.Same(t, limiterFor(acme("c-de", 0), nil), limiterFor(acme("c-at", 0), nil))
	require.Same(t, limiterFor(acme("c-de", 400), nil), limiterFor(acme("c-at", 400), nil))
	require.NotSame(t, limiterFor(acme("c-de", 0), nil), limiterFor(acme("c-de", 400), nil), "another rate, another limiter")
	require.NotSame(t, limiterFor(acme("c-de", 0), nil), limiterFor(Target{BaseURL: "https://b.example", ConnectionID: "c-de", Partner: "ACME GmbH"}, nil),
		"another platform")
	require.NotSame(t, limiterFor(Target{BaseURL: "https://a.example", ConnectionID: "c-x"}, nil), limiterFor(Target{BaseURL: "https://a.example", ConnectionID: "c-y"}, nil),
		"without a partner label each connection is its own partner")
	given := rate.NewLimiter(5, 1)
	require.Same(t, given, limiterFor(Target{Rate: 400}, given), "a shared limiter wins")
	require.Equal(t, rate.Limit(apiclient.DefaultRate), apiclient.NewLimiterAt(0).Limit())
	require.Equal(t, apiclient.DefaultBurst, apiclient.NewLimiterAt(20).Burst())
	require.EqualValues(t, credentials.DefaultRate, apiclient.DefaultRate, "one default in both packages")
}

func TestResolveCarriesTheProfileRate(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	p := twoKeys()
	p.Rate = 250
	require.NoError(t, AddProfile(ctx, te.file(t), p, twoSecrets(), te.store))
	tg, err := ResolveProfile(ctx, te.env(), "acme")
	require.NoError(t, err)
	require.Equal(t, 250, tg.Rate, "the rate survives the file")
	require.Equal(t, rate.Limit(250), limiterFor(tg, nil).Limit())

	require.Equal(t, 250, p.RequestRate())
	require.Equal(t, 100, credentials.Profile{}.RequestRate())
	for _, bad := range []int{-1, credentials.MaxRate + 1} {
		p.Rate = bad
		require.ErrorContains(t, p.Validate(), "rate")
	}
}
