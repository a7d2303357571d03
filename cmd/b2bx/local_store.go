package main

import (
	"errors"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// localStore opens the spool of a connection chosen by profile (-c) or
// connection ID (--connection) for commands that only read the local
// store (bundle, uploads): no URL, no secret. code is the exit code for
// err.
func localStore(e *env, profile, conn string) (connTarget, *spool.Store, int, error) {
	if (profile == "") == (conn == "") {
		return connTarget{}, nil, exitUsage, errors.New("choose the connection with -c NAME or --connection ID")
	}
	t := connTarget{ConnectionID: conn}
	if profile != "" {
		f, err := loadProfiles(e)
		if err != nil {
			return t, nil, exitUsage, err
		}
		p, err := findProfile(f, profile)
		if err != nil {
			return t, nil, exitUsage, err
		}
		t = connTarget{Name: p.Name, ConnectionID: p.ConnectionID, StoreDir: p.StoreDir, Directory: p.EDIDirectory(), MIG: p.MIGPath(f.Path)}
	}
	store, err := openSpool(e, t)
	if err != nil {
		return t, nil, exitStorage, err
	}
	return t, store, exitOK, nil
}
