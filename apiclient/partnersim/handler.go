package partnersim

import (
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// route is a parsed request path.
type route struct {
	ep      Endpoint
	conn    string
	entry   string
	methods string // the one method the endpoint accepts
}

// parseRoute splits BasePath/{conn}/inbox, /mailbox and
// /mailbox/{id}/{claim|payload|acknowledge} of an escaped path, unescaping
// each segment (so an id may contain an escaped "/").
func parseRoute(path string) route {
	rest, ok := strings.CutPrefix(path, BasePath+"/")
	if !ok {
		return route{ep: EndpointUnknown}
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			return route{ep: EndpointUnknown}
		}
		parts[i] = u
	}
	if len(parts) < 2 || parts[0] == "" {
		return route{ep: EndpointUnknown}
	}
	r := route{conn: parts[0], ep: EndpointUnknown}
	switch {
	case len(parts) == 2 && parts[1] == "inbox":
		r.ep, r.methods = EndpointInbox, http.MethodPost
	case len(parts) == 2 && parts[1] == "mailbox":
		r.ep, r.methods = EndpointList, http.MethodGet
	case len(parts) == 4 && parts[1] == "mailbox" && parts[2] != "":
		r.entry = parts[2]
		switch parts[3] {
		case "claim":
			r.ep, r.methods = EndpointClaim, http.MethodPost
		case "payload":
			r.ep, r.methods = EndpointPayload, http.MethodGet
		case "acknowledge":
			r.ep, r.methods = EndpointAcknowledge, http.MethodPost
		}
	}
	return r
}

// scopeFor is the exact scope each endpoint requires.
var scopeFor = map[Endpoint]string{
	EndpointInbox:       ScopeInboxCreate,
	EndpointList:        ScopeMailboxList,
	EndpointClaim:       ScopeMailboxClaim,
	EndpointPayload:     ScopeMailboxPayloadRead,
	EndpointAcknowledge: ScopeMailboxAcknowledge,
}

// principal is an authenticated caller.
type principal struct {
	keyID  string
	tenant string
}

// call carries one request through the handlers.
type call struct {
	w     *recWriter
	r     *http.Request
	rt    route
	who   principal
	fault EndpointFault
}

// ServeHTTP implements http.Handler.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rt := parseRoute(r.URL.EscapedPath())
	rec := RequestRecord{
		Time: s.clock.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Endpoint: rt.ep, ConnectionID: rt.conn, DeliveryAttemptID: rt.entry,
		CorrelationID: correlationID(r),
	}
	rw := &recWriter{ResponseWriter: w}
	body := &countingReader{r: r.Body}
	r.Body = body
	defer func() {
		rec.Status, rec.Aborted, rec.BodyBytes = rw.status, rw.aborted, body.n
		if p := recover(); p != nil {
			rec.Aborted = true
			s.logRequest(rec, start)
			panic(p)
		}
		s.logRequest(rec, start)
	}()
	if rec.CorrelationID != "" {
		w.Header().Set("X-Correlation-ID", rec.CorrelationID)
	}
	if rt.ep == EndpointUnknown || r.Method != rt.methods {
		writeError(rw, http.StatusNotFound, "")
		return
	}
	// The Date header comes from the simulator's clock, as a real
	// server's comes from its own: lease times are read against it.
	setDate(w, s.clock.Now())
	c := &call{w: rw, r: r, rt: rt}
	if f, ok := s.takeFault(rt.ep, rt.entry); ok {
		rec.FaultInjected = true
		c.fault = f
		if !sleepCtx(r.Context(), f.Latency) {
			return
		}
		if f.DateSkew != 0 {
			setDate(w, s.clock.Now().Add(f.DateSkew))
		}
		if f.Status != 0 {
			writeRetryAfter(rw, f.RetryAfter)
			if f.RetryAfterHeader != "" {
				rw.Header().Set("Retry-After", f.RetryAfterHeader)
			}
			writeError(rw, f.Status, "")
			return
		}
	}
	who, ok := s.authenticate(r, rt)
	if !ok {
		writeError(rw, http.StatusNotFound, "")
		return
	}
	c.who = who
	switch rt.ep {
	case EndpointInbox:
		s.handleInbox(c)
	case EndpointList:
		s.handleList(c)
	case EndpointClaim:
		s.handleClaim(c)
	case EndpointPayload:
		s.handlePayload(c)
	case EndpointAcknowledge:
		s.handleAcknowledge(c)
	}
}

// authenticate checks the Bearer key, its secret, tenant, connection
// binding and the endpoint's scope. Every failure is the same "no".
func (s *Sim) authenticate(r *http.Request, rt route) (principal, bool) {
	auth := r.Header.Get("Authorization")
	scheme, cred, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return principal{}, false
	}
	id, sec, ok := strings.Cut(strings.TrimSpace(cred), ":")
	if !ok || id == "" || sec == "" {
		return principal{}, false
	}
	sum := sha256.Sum256([]byte(sec))
	s.mu.Lock()
	defer s.mu.Unlock()
	k, known := s.keys[id]
	if !known {
		// Compare anyway so unknown keys and wrong secrets take the same time.
		subtle.ConstantTimeCompare(sum[:], make([]byte, len(sum)))
		return principal{}, false
	}
	if subtle.ConstantTimeCompare(sum[:], k.secretHash[:]) != 1 {
		return principal{}, false
	}
	c, ok := s.conns[rt.conn]
	if !ok || c.Tenant != k.tenant || (len(k.conns) > 0 && !k.conns[rt.conn]) || !k.scopes[scopeFor[rt.ep]] {
		return principal{}, false
	}
	return principal{keyID: k.id, tenant: k.tenant}, true
}

// correlationID returns the client's X-Correlation-ID if it is a sane
// token (printable ASCII, at most 128 bytes); anything else is ignored so
// that it cannot inject into logs or headers.
func correlationID(r *http.Request) string {
	v := r.Header.Get("X-Correlation-ID")
	if len(v) == 0 || len(v) > 128 {
		return ""
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return ""
		}
	}
	return v
}

func (s *Sim) logRequest(rec RequestRecord, start time.Time) {
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	s.logger.Info("request", "method", rec.Method, "path", rec.Path, "status", rec.Status,
		"correlationId", rec.CorrelationID, "aborted", rec.Aborted, "duration", time.Since(start))
}

// recWriter remembers the status and whether the response was cut.
// Unwrap lets http.ResponseController reach Flush and Hijack.
type recWriter struct {
	http.ResponseWriter
	status  int
	aborted bool
}

func (w *recWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush forwards to the underlying writer.
func (w *recWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *recWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// abort cuts the connection (see abortConnection) and marks the record.
func (c *call) abort() {
	c.w.aborted = true
	abortConnection(c.w.ResponseWriter, c.r)
}

// respond writes a JSON answer, or drops it when the call's fault says so
// (the state change has already been committed by the caller).
func (c *call) respond(status int, v any) {
	if c.fault.DropResponse {
		c.abort()
		return
	}
	writeJSON(c.w, status, v)
}

type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// setDate sets the Date header (the HTTP server keeps one a handler set).
func setDate(w http.ResponseWriter, t time.Time) {
	w.Header().Set("Date", t.UTC().Format(http.TimeFormat))
}
