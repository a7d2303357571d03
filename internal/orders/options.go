package orders

import (
	"context"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/mig"
)

// ConnectionOptions are the pre-flight options of a connection: its
// directory, and its partner rules from migPath (the --mig flag when
// given, else the profile's mig; "" for none), loaded and validated here.
// The error is a rules file that cannot be read or is not valid (with
// its file and line).
func ConnectionOptions(directory, migPath string, force bool) (Options, error) {
	o := Options{Directory: directory, Force: force}
	if migPath == "" {
		return o, nil
	}
	rs, err := mig.Load(migPath)
	if err != nil {
		return o, fmt.Errorf("the partner rules cannot be used, nothing was sent: %w", err)
	}
	o.Rules = rs
	return o, nil
}

// WithHistory adds the connection's accepted and rejected uploads
// (LoadHistory, with load: track.SelectLoader reads the index) to o. A
// history that cannot be read leaves o as it is: the comparison only
// warns, so its absence never stops an upload.
func (o Options) WithHistory(ctx context.Context, store *spool.Store, connectionID string, load SelectLoader) Options {
	if h, err := LoadHistory(ctx, store, connectionID, load); err == nil {
		o.History = h
	}
	return o
}

// WithHistoryVerdicts is WithHistory with the verdicts of verdicts
// (track.Linker's keeps them in the index between uploads).
func (o Options) WithHistoryVerdicts(ctx context.Context, store *spool.Store, connectionID string, verdicts VerdictLoader) Options {
	if h, err := LoadHistoryWith(ctx, store, connectionID, verdicts); err == nil {
		o.History = h
	}
	return o
}

// PrepareWith is Prepare with the connection's pre-flight options.
func PrepareWith(ctx context.Context, store *spool.Store, connectionID, path string, opts Options) (*Plan, error) {
	pf, err := InspectWith(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return NewPlan(store, connectionID, pf)
}
