package cmddoc

// Exits shared by many commands.
var (
	ok         = Exit{OK, "done"}
	api        = Exit{API, "the Partner API answered with an error, or the network failed (the message says what to check)"}
	interrupt1 = Exit{Interrupted, "Ctrl-C or SIGTERM cut the input or the output short (it says which; --json output is then incomplete)"}
)

// docs are every command's documentation; a test in cmd/b2bx checks that
// each registered command has one and that every example parses.
var docs = []Doc{
	{
		Name:     "app",
		Synopsis: []string{"app [--fresh]", "(no arguments: the same)"},
		Examples: []Example{
			{"", "your connection profiles, as tabs"},
			{"app --fresh", "forget the remembered tabs and start clean"},
		},
		Exits: []Exit{ok, {Usage, "no terminal, a bad config.toml (it names the file and line) or a bad profile file"}},
		Topic: "app.md",
	},
	{
		Name:     "demo",
		Synopsis: []string{"demo [--reply-delay D] [--throttle RATE] [--entries N] [--faults LIST]"},
		Examples: []Example{
			{"demo", "the app against the built-in simulator, nothing to set up"},
			{"demo --throttle 2MiB --entries 10000 --reply-delay 5s", "a slow link, a large mailbox, slow answers"},
			{"demo --faults none", "no webhook faults once :events listen runs"},
		},
		Exits: []Exit{ok, {Usage, "no terminal (it points at make tour) or a bad flag"}, {Storage, "the temporary directory could not be made"}},
		Topic: "app.md",
	},
	{
		Name:     "parse",
		Synopsis: []string{"parse FILE|- [--segments] [--describe] [--json] [--max-input SIZE]"},
		Examples: []Example{
			{"parse testdata/edifact/orders_d96a.edi", "envelope, messages, summaries, issues"},
			{"parse testdata/edifact/orders_d96a.edi --segments", "also every segment with its name and group path"},
			{"parse testdata/edifact/orders_d96a.edi --describe", "also every element with its name and code meaning"},
			{"parse testdata/edifact/orders_d96a.edi --json", "one stable JSON document"},
			{"parse - < FILE", "read from stdin"},
		},
		Exits: []Exit{{OK, "no errors (warnings are allowed)"}, {FileError, "the file has errors"}, {Usage, "usage or I/O problems, refused input (too large, not a usable interchange)"}, interrupt1},
		Topic: "edifact.md",
	},
	{
		Name:     "view",
		Synopsis: []string{"view FILE"},
		Examples: []Example{
			{"view testdata/edifact/contrl_22_rejected.edi", "browse it; q quits, ? lists every key"},
		},
		Exits: []Exit{ok, {Usage, "no terminal (it suggests parse --segments), a file that cannot be read or was shortened while viewed"}},
		Topic: "edifact.md",
	},
	{
		Name:     "diff",
		Synopsis: []string{"diff ORDERS ORDRSP [--all] [--json]"},
		Examples: []Example{
			{"diff testdata/edifact/orders_d96a.edi testdata/edifact/ordrsp_d96a.edi", "what the partner changed, per line"},
			{"diff testdata/edifact/orders_d96a.edi testdata/edifact/ordrsp_d96a.edi --all", "unchanged lines too"},
		},
		Exits: []Exit{{OK, "the ORDRSP changed nothing"}, {FileError, "the ORDRSP changed something"}, {Usage, "usage, unreadable or unusable files"}, interrupt1},
		Topic: "answers.md",
	},
	{
		Name:     "pin",
		Synopsis: []string{"pin ORDERS ANSWER... [--json]"},
		Examples: []Example{
			{"pin testdata/edifact/orders_rejectable.edi contrl.edi", "each CONTRL/APERAK error under the ORDERS segment it names"},
		},
		Exits: []Exit{{OK, "the answers report no error"}, {FileError, "the answers report errors"}, {Usage, "usage, unreadable files, a CONTRL that answers another interchange"}, interrupt1},
		Topic: "fix-and-resend.md",
	},
	{
		Name:     "conn add",
		Synopsis: []string{"conn add NAME --url URL --connection ID --key-id K [--mailbox-key-id K] [--secret-stdin | --no-secret] [--force]"},
		Examples: []Example{
			{"conn add acme-de --url https://api.example.com --connection 3c0394dd-136a-40b5-b0c2-1f3003083d8a --key-id key-upload --mailbox-key-id key-mailbox", "prompts for each secret, stores it in the OS keyring"},
		},
		Exits: []Exit{ok, {Usage, "bad flags, a refused URL or a secret-shaped value, no terminal to prompt on"}, {Storage, "the profile file or the keyring failed (what changed is rolled back and said)"}},
		Topic: "profiles.md",
	},
	{
		Name:     "conn ls",
		Synopsis: []string{"conn ls [--json]"},
		Examples: []Example{
			{"conn ls", "profiles, and per key where its secret is (keyring, env, missing, locked …)"},
		},
		Exits: []Exit{ok, {Usage, "a bad profile file"}, {Storage, "writing the output failed"}},
		Topic: "profiles.md",
	},
	{
		Name:     "conn test",
		Synopsis: []string{"conn test NAME [--timeout D]"},
		Examples: []Example{
			{"conn test acme-de", "reads one mailbox page (limit 1); explains a 404"},
		},
		Exits: []Exit{{OK, "the secrets are there and a mailbox page was read"}, {Usage, "no such profile, a secret missing"}, {API, "the API refused or did not answer"}, {Storage, "the keyring failed"}},
		Topic: "profiles.md",
	},
	{
		Name:     "conn set-secret",
		Synopsis: []string{"conn set-secret NAME [--key-id K] [--secret-stdin]"},
		Examples: []Example{
			{"conn set-secret acme-de --key-id key-mailbox", "rotate one key's secret"},
		},
		Exits: []Exit{ok, {Usage, "no such profile or key ID, no terminal to prompt on"}, {Storage, "the keyring failed (no secret was changed)"}},
		Topic: "profiles.md",
	},
	{
		Name:     "conn rm",
		Synopsis: []string{"conn rm NAME [--keep-secrets]"},
		Examples: []Example{
			{"conn rm acme-de", "also deletes its keyring entries"},
			{"conn rm acme-de --keep-secrets", "keeps them"},
		},
		Exits: []Exit{ok, {Usage, "no such profile"}, {Storage, "the profile file or the keyring failed"}},
		Topic: "profiles.md",
	},
	{
		Name:     "mailbox ls",
		Synopsis: []string{"mailbox ls (-c NAME | --url URL --connection ID) [--limit N] [--all | --cursor C] [--json]"},
		Examples: []Example{
			{"mailbox ls -c acme-de", "the first page of due deliveries"},
			{"mailbox ls -c acme-de --all --json", "every page, as JSON"},
		},
		Exits: []Exit{ok, {Usage, "bad flags, no profile or secret"}, api, {Storage, "writing the output failed"}},
		Topic: "mailbox.md",
	},
	{
		Name:     "fetch",
		Synopsis: []string{"fetch ID [--ack] [--out DIR] [--json]", "fetch --next [--ack] [--out DIR] [--json]", "fetch --all --ack [--out DIR] [--admin HOST:PORT] [--metrics-file PATH.prom] [--json]", "(each with -c NAME, or --url URL --connection ID, and --timeout D)"},
		About: `Claims a delivery, streams it while counting and hashing, checks size
and SHA-256 against the headers and the listing and the integrity
trailer, stores it durably and, with --ack and only when all of that
passed, acknowledges it. A failure acknowledges nothing: the lease runs
out and the entry becomes due again.`,
		Examples: []Example{
			{"fetch --next --ack -c acme-de", "the head of the mailbox: download, verify, store, acknowledge"},
			{"fetch 2d9af342-c625-48c1-821c-f9fb7dd99e75 -c acme-de --out /tmp/in", "one delivery, also copied to /tmp/in, not acknowledged"},
			{"fetch --all --ack -c acme-de --json", "every due entry until the mailbox is empty or one fails"},
			{"fetch --all --ack -c acme-de --metrics-file /var/lib/node_exporter/textfile/b2bx_fetch.prom", "a scheduled run's metrics for node_exporter, written when it ends"},
		},
		Exits: []Exit{
			{OK, "done (an empty mailbox with --next or --all too)"},
			{Usage, "bad flags, no profile or secret"},
			{API, "the Partner API answered with an error, the network failed, the ID is not listed or is refused before claiming, or the download was stopped on this side (no check ran)"},
			{Integrity, "the payload failed an integrity check or broke off mid-stream; nothing was acknowledged"},
			{Storage, "the spool, the --out target or the receipt record failed"},
		},
		Topic: "mailbox.md",
	},
	{
		Name:     "upload",
		Synopsis: []string{"upload FILE [--key K | --replay | --new] [--fixes UPLOAD-ID] [--mig FILE] [--force] [--json]", "(with -c NAME, or --url URL --connection ID, and --timeout D)"},
		Examples: []Example{
			{"upload testdata/edifact/orders_d96a.edi -c acme-de", "pre-flight, the generated key, then the upload"},
			{"upload po.edi -c acme-de --replay", "bytes already accepted: send them again under the same key"},
			{"upload fix.edi -c acme-de --fixes 7347eadc-0491-49f5-8385-bd50fe40ced0", "a fix, recorded as a resend of the rejected upload"},
		},
		Exits: []Exit{
			{OK, "accepted (202) or a replay (200)"},
			{Usage, "the pre-flight refused the file, bytes already accepted without --replay or --new, bytes identical to a rejected upload without --force, no profile or secret"},
			{API, "the Partner API refused the upload or did not answer (a retry reuses the key)"},
			{Storage, "the spool or the upload history could not be read or written (also after a 202 whose result could not be recorded: keep the output)"},
		},
		Topic: "preflight.md",
	},
	{
		Name:     "uploads",
		Synopsis: []string{"uploads (-c NAME | --connection ID) [--json] [-o FILE.csv|FILE.json [--force]]"},
		Examples: []Example{
			{"uploads -c acme-de", "the upload history, newest first, with the partner's answers and resends"},
			{"uploads -c acme-de -o uploads.csv", "also as CSV"},
		},
		Exits: []Exit{ok, {Usage, "bad flags, an -o target that exists (without --force) or has another extension"}, {Storage, "the store or the -o file failed"}},
		Topic: "fix-and-resend.md",
	},
	{
		Name:     "check",
		Synopsis: []string{"check FILE [-c NAME] [--mig FILE] [--json]"},
		Examples: []Example{
			{"check po.edi -c acme-de", "the upload screen's pre-flight for acme-de (its directory, partner rules and history), nothing sent"},
			{"check po.edi --mig testdata/mig/demo.toml --json", "against a partner's rules file, as JSON"},
		},
		Exits: []Exit{{OK, "clean"}, {FileError, "warnings only: b2bx upload would ask to confirm them"}, {Usage, "blocked (the reason is printed), or a bad FILE, profile or rules file"}},
		Topic: "preflight.md",
	},
	{
		Name:     "mig learn",
		Synopsis: []string{"mig learn -c NAME [-o FILE]"},
		Examples: []Example{
			{"mig learn -c acme-de -o acme.toml", "the shape of what acme-de's partner accepted, as a rules file to start from"},
		},
		Exits: []Exit{ok, {Usage, "no profile, FILE exists, or no accepted upload to learn from"}, {Storage, "the history, the answers or FILE could not be read or written"}},
		Topic: "preflight.md",
	},
	{
		Name:     "bundle",
		Synopsis: []string{"bundle (DELIVERY-ID | UPLOAD-ID) [-c NAME | --connection ID] [-o DIR] [--json]"},
		Examples: []Example{
			{"bundle 7347eadc-0491-49f5-8385-bd50fe40ced0 -c acme-de", "the ticket for the partner's operator, in the current directory"},
			{"bundle 7347eadc-0491-49f5-8385-bd50fe40ced0 -o /tmp", "the same without -c: the tracking index knows the connection"},
		},
		Exits: []Exit{ok, {Usage, "an ID that is neither a stored delivery nor an upload of the connection, or (without -c) stored on no connection or on several"}, {Storage, "the bundle could not be written"}},
		Topic: "answers.md",
	},
	{
		Name:     "find",
		Synopsis: []string{"find QUERY [-c NAME] [--since D] [--json]", "find --timeline QUERY [--json]", "find --overdue [--json]"},
		Examples: []Example{
			{"find PO-4711", "a bare word matches any key"},
			{"find po:PO-4711", "order number"},
			{"find icr:604775876", "interchange control reference"},
			{"find gln:4012345000009 --since 72h -c acme-de", "what a GLN sent on one connection"},
			{"find 'PO-47*'", "a trailing * matches every key starting with the rest"},
			{"find --timeline po:PO-4711", "the newest matching conversation, step by step"},
			{"find --overdue", "late or rejected uploads (cron, monitoring)"},
		},
		Exits: []Exit{ok, {FileError, "with --overdue: an upload is overdue or needs action"}, {Usage, "no or too long a QUERY, bad flags"}, {Storage, "the tracking index or the store failed"}},
		Topic: "tracking.md",
	},
	{
		Name:     "store init",
		Synopsis: []string{"store init [--json]"},
		About:    "Creates the team store's tables and its tracking index in the database of [store] url (config.toml), or migrates them; run it again after an upgrade. It needs a role that may create tables; engineers' roles need less (docs/team-store.md).",
		Examples: []Example{
			{"store init", "create or migrate the schema; says the versions"},
		},
		Exits: []Exit{ok, {Usage, "no [store] url, a URL with a password or without TLS off loopback"}, {Storage, "the database is unreachable, refused, or of a newer b2bx"}},
		Topic: "team-store.md",
	},
	{
		Name:     "store status",
		Synopsis: []string{"store status [--json]"},
		Examples: []Example{
			{"store status", "reachable, schema versions, who the records say they are by"},
			{"store status --json", "the same as JSON (monitoring)"},
		},
		Exits: []Exit{ok, {Usage, "no [store] url or a bad one"}, {Storage, "unreachable, no current schema (run store init), or a newer b2bx's schema"}},
		Topic: "team-store.md",
	},
	{
		Name:     "store login",
		Synopsis: []string{"store login [--password-stdin]"},
		About:    "Keeps the database password of [store] url in the OS keyring after checking it connects. Without it b2bx uses PGPASSWORD or ~/.pgpass; never put the password in the URL.",
		Examples: []Example{
			{"store login", "asks for the password without echo"},
			{"store login --password-stdin", "reads it as one line from stdin (scripts)"},
		},
		Exits: []Exit{ok, {Usage, "no [store] url, no terminal to prompt on, an empty password"}, {Storage, "it did not connect with that password, or the keyring failed"}},
		Topic: "team-store.md",
	},
	{
		Name:     "index",
		Synopsis: []string{"index [--rebuild] [--json]"},
		Examples: []Example{
			{"index", "bring the tracking index up to date"},
			{"index --rebuild", "build it from scratch"},
		},
		Exits: []Exit{ok, {Usage, "an argument"}, {Storage, "the index or the store failed"}},
		Topic: "tracking.md",
	},
	{
		Name:     "event verify",
		Synopsis: []string{"event verify --header 'X-NB2B-Signature: t=…,v1=…' --body FILE (--secret-stdin | -c PROFILE) [--key-id K,K] [--now UNIX] [--json]"},
		Examples: []Example{
			{"event verify --header \"X-NB2B-Signature: $SIG\" --body body.json --secret-stdin < secret.txt", "HMAC over the exact bytes, the clock within ±300 s"},
		},
		Exits: []Exit{{OK, "the signature is valid"}, {FileError, "it is invalid (NB-E008: no v1 matches, or the timestamp is off)"}, {Usage, "usage, an unreadable body, a malformed header, no secret"}, {Storage, "writing the output failed"}},
		Topic: "events.md",
	},
	{
		Name:     "event sign",
		Synopsis: []string{"event sign --body FILE --secret-stdin [--t UNIX] [--value]"},
		Examples: []Example{
			{"event sign --body body.json --secret-stdin < secret.txt", "the X-NB2B-Signature header for a body"},
		},
		Exits: []Exit{ok, {Usage, "usage, an unreadable body, no secret"}},
		Topic: "events.md",
	},
	{
		Name:     "event inspect",
		Synopsis: []string{"event inspect FILE|DIR... [--secret-stdin | -c PROFILE] [--now UNIX] [--jwks FILE] [--from-start] [--json]"},
		Examples: []Example{
			{"event inspect apiclient/events/testdata/batch_issues.json", "envelope, duplicates, ordering of captured deliveries"},
			{"event inspect /tmp/hooks --from-start --secret-stdin < secret.txt", "what event listen captured, signatures too"},
		},
		Exits: []Exit{{OK, "no errors (warnings allowed)"}, {FileError, "the captures have errors"}, {Usage, "usage or an unreadable capture"}, {Storage, "writing the output failed"}},
		Topic: "events.md",
	},
	{
		Name:     "event listen",
		Synopsis: []string{"event listen [--addr 127.0.0.1:8787] [-c PROFILE | --secret-stdin] [--tls-cert F --tls-key F] [--dir DIR] [--keep DUR] [--jwks [GLN=]FILE|URL] [--admin HOST:PORT] [--store] [--json]"},
		Examples: []Example{
			{"event listen -c acme-de", "http://127.0.0.1:8787, the profile's webhook secret"},
			{"event listen --secret-stdin --dir /tmp/hooks --json < secret.txt", "captures in /tmp/hooks, one JSON line per delivery"},
			{"event listen -c acme-de --addr 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem", "beyond loopback only with TLS"},
			{"event listen -c acme-de --admin 127.0.0.1:9464", "/healthz and Prometheus /metrics on a listener of their own"},
			{"event listen -c acme-de --store", "every committed capture also to the team store (one always-on receiver for the team)"},
		},
		Exits: []Exit{{OK, "stopped by Ctrl-C or SIGTERM"}, {Usage, "bad flags, no secret, an address that needs TLS, a port in use, the server stopped with an error"}, {Storage, "the capture directory failed"}},
		Topic: "events.md",
	},
	{
		Name:     "event set-secret",
		Synopsis: []string{"event set-secret -c PROFILE [--key-id webhook] [--secret-stdin]"},
		Examples: []Example{
			{"event set-secret -c acme-de", "prompts without echo, stores it in the OS keyring"},
		},
		Exits: []Exit{ok, {Usage, "no -c, a bad key ID, an empty secret, no terminal to prompt on"}, {Storage, "the keyring failed"}},
		Topic: "events.md",
	},
	{
		Name:     "sim",
		Synopsis: []string{"sim [--addr A] [--seed demo|empty] [--json] [--http2 [--ca-file F]] [--throttle RATE] [--entries N] [--reply-delay D] [--large N]", "sim --webhook URL (--secret-stdin | -c PROFILE) [--faults LIST] [--retry-scale N]"},
		Examples: []Example{
			{"sim", "base URL, connections and throwaway keys; Ctrl-C stops it"},
			{"sim --json", "line 1: {baseURL, connections:[{name, connectionId, keyId, secret, scopes}]}"},
			{"sim --http2 --ca-file ca.pem", "HTTPS + HTTP/2; then export SSL_CERT_FILE=ca.pem"},
			{"sim --throttle 2MiB", "every payload at 2 MiB/s, like a slow partner link"},
			{"sim --entries 10000", "10000 small deliveries more on acme-de"},
			{"sim --seed empty --webhook http://127.0.0.1:8787/webhook --secret-stdin --faults all --retry-scale 300 < secret.txt", "webhook events and every fault, to event listen"},
		},
		Exits: []Exit{{OK, "stopped by Ctrl-C or SIGTERM"}, {Usage, "bad flags, a port in use, no webhook secret, stdout could not be written"}, {Storage, "seeding the demo data or writing the CA file failed"}},
		Topic: "simulator.md",
	},
	{
		Name:     "store push",
		Synopsis: []string{"store push [--captures DIR]... [--wait DUR] [--json]"},
		Examples: []Example{
			{"store push", "the first time with a team store: every delivery, upload record, seen line and capture of this machine"},
			{"store push --captures /srv/hooks --wait 30m", "also the captures of another event listen directory"},
		},
		Exits: []Exit{ok, {Usage, "no team store configured, an argument, a bad --wait"}, {API, "the team store did not take everything within --wait (it says what waits and why)"}, {Storage, "the outbox or a spool could not be read or written"}},
		Topic: "team-store.md",
	},
	{
		Name:     "version",
		Synopsis: []string{"version [--json]", "--version"},
		Examples: []Example{
			{"version", "module version, commit and its time, dirty tree, Go version and platform"},
		},
		Exits: []Exit{ok, {Usage, "an argument"}, {Storage, "writing the output failed"}},
		Topic: "commands.md",
	},
	{
		Name:     "completion",
		Synopsis: []string{"completion bash|zsh|fish", "completion --profiles"},
		Examples: []Example{
			{"completion bash", "source <(b2bx completion bash), e.g. in ~/.bashrc"},
			{"completion zsh", "b2bx completion zsh > \"${fpath[1]}/_b2bx\""},
			{"completion fish", "b2bx completion fish > ~/.config/fish/completions/b2bx.fish"},
		},
		Exits: []Exit{ok, {Usage, "no or an unknown shell"}, {Storage, "writing the script or the profile names failed"}},
		Topic: "commands.md",
	},
}
