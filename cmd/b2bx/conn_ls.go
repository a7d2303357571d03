package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "conn ls", summary: "list connection profiles and whether their secrets are present", run: runConnLs})
}

// connLsJSON is the --json output of conn ls.
type connLsJSON struct {
	ConfigFile string        `json:"configFile"`
	Profiles   []profileJSON `json:"profiles"`
}

type profileJSON struct {
	Name         string    `json:"name"`
	Partner      string    `json:"partner,omitempty"`
	URL          string    `json:"url"`
	Connection   string    `json:"connection"`
	InboxKeyID   string    `json:"inboxKeyId"`
	MailboxKeyID string    `json:"mailboxKeyId"`
	StoreDir     string    `json:"storeDir,omitempty"`
	Directory    string    `json:"directory"`     // the profile revision: D.96A (default) or D.25A
	MIG          string    `json:"mig,omitempty"` // the partner rules file, resolved
	Rate         int       `json:"rate"`          // the client-side limit in requests/s (the contract's 100 unless the profile sets one)
	Keys         []keyJSON `json:"keys"`
}

// keyJSON says where a key's secret is; it never carries the secret.
type keyJSON struct {
	KeyID  string   `json:"keyId"`
	Uses   []string `json:"uses"`
	Secret string   `json:"secret"` // keyring, env, missing, no-keyring, locked, timeout, error
	Error  string   `json:"error,omitempty"`
}

func runConnLs(ctx context.Context, e *env, args []string) int {
	const name = "conn ls"
	fs := newFlagSet(e, name, "")
	asJSON := fs.Bool("json", false, "print JSON: {configFile, profiles: [{name, ..., keys: [{keyId, uses, secret}]}]}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, name, *asJSON, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0])))
	}
	file, err := loadProfiles(e)
	if err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	store, err := secretStoreFor(e)
	if err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	states := session.ConnStates(ctx, store, file, e.getenv)
	missing, problem := session.Problems(states)
	out := connLsJSON{ConfigFile: file.Path, Profiles: []profileJSON{}}
	for _, cs := range states {
		p := cs.Profile
		pj := profileJSON{Name: p.Name, Partner: p.Partner, URL: p.URL, Connection: p.ConnectionID,
			InboxKeyID: p.InboxKeyID, MailboxKeyID: p.MailboxKeyID, StoreDir: p.StoreDir,
			Directory: p.EDIDirectory(), MIG: p.MIGPath(file.Path), Rate: p.RequestRate()}
		for _, k := range cs.Keys {
			kj := keyJSON{KeyID: k.KeyID, Secret: string(k.State)}
			for _, u := range k.Uses {
				kj.Uses = append(kj.Uses, string(u))
			}
			if k.Err != nil {
				kj.Error = termsafe.String(k.Err.Error())
			}
			pj.Keys = append(pj.Keys, kj)
		}
		out.Profiles = append(out.Profiles, pj)
	}
	if *asJSON {
		return emitJSON(e, name, out)
	}
	printProfiles(e, out)
	if missing > 0 {
		fmt.Fprintf(e.stderr, "b2bx conn ls: %d key(s) have no secret: store one with 'b2bx conn set-secret NAME'\n", missing)
	}
	if problem != nil {
		fmt.Fprintf(e.stderr, "b2bx conn ls: %s\n", termsafe.String(problem.Error()))
	}
	return exitOK
}

// printProfiles writes the human table; every value is sanitised (the file
// is hand-editable).
func printProfiles(e *env, out connLsJSON) {
	if len(out.Profiles) == 0 {
		fmt.Fprintf(e.stdout, "no profiles in %s\nadd one: b2bx conn add NAME --url URL --connection ID --key-id KEY\n", termsafe.String(out.ConfigFile))
		return
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPARTNER\tURL\tCONNECTION\tDIRECTORY\tRATE/S\tINBOX KEY\tMAILBOX KEY\tSECRET")
	for _, p := range out.Profiles {
		var states []string
		for _, k := range p.Keys {
			if len(p.Keys) == 1 {
				states = append(states, k.Secret)
			} else {
				states = append(states, strings.Join(k.Uses, "+")+":"+k.Secret)
			}
		}
		partner := p.Partner
		if partner == "" {
			partner = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", termsafe.String(p.Name), termsafe.String(partner), termsafe.String(p.URL),
			termsafe.String(p.Connection), termsafe.String(p.Directory), p.Rate, termsafe.String(p.InboxKeyID), termsafe.String(p.MailboxKeyID), strings.Join(states, " "))
	}
	_ = tw.Flush()
	fmt.Fprintf(e.stdout, "profiles: %s\n", termsafe.String(out.ConfigFile))
}
