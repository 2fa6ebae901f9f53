package leantest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Fault is one scripted misbehaviour of the fake kimina server, applied to
// one request.
type Fault int

const (
	// Busy answers 429 "No available REPLs" with Retry-After: 0.
	Busy Fault = iota + 1
	// ServerError answers 500.
	ServerError
	// Unavailable answers 503.
	Unavailable
	// Drop closes the connection without an answer.
	Drop
	// Garbage answers 200 with a body that is not JSON.
	Garbage
)

// Kimina is a fake kimina-lean-server (2.0.0 wire format): POST /api/check
// and the older POST /verify, GET /health, Bearer API key when APIKey is
// set. It "elaborates" a toy Lean: the import lines at the top are the
// header (as the real server splits them); in the body, `sorry` gives a
// sorries entry and the "declaration uses 'sorry'" warning, and comment
// markers act: `--! error MSG` (an error there), `--! timeout` (the
// server's timeout error), `--! replerror` (a REPL {"message"} answer).
// Positions are reported relative to the whole code, as the server does.
type Kimina struct {
	*httptest.Server
	APIKey string

	mu       sync.Mutex
	faults   []Fault
	requests int
	snippets int
	bodies   []string
}

// NewKimina starts the fake server; Close stops it.
func NewKimina() *Kimina {
	k := &Kimina{}
	k.Server = httptest.NewServer(http.HandlerFunc(k.serve))
	return k
}

// Script queues faults for the next requests to the check endpoints.
func (k *Kimina) Script(faults ...Fault) {
	k.mu.Lock()
	k.faults = append(k.faults, faults...)
	k.mu.Unlock()
}

// Requests is the number of check requests received (faulted ones too);
// Snippets the number of snippets answered.
func (k *Kimina) Requests() (requests, snippets int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests, k.snippets
}

// Bodies returns the request bodies received.
func (k *Kimina) Bodies() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.bodies...)
}

func (k *Kimina) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/health" || r.URL.Path == "/"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
		return
	case r.Method == http.MethodPost && (r.URL.Path == "/api/check" || r.URL.Path == "/api/check/" || r.URL.Path == "/verify"):
	default:
		http.Error(w, `{"detail":"Not Found"}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	k.mu.Lock()
	k.requests++
	k.bodies = append(k.bodies, string(body))
	var f Fault
	if len(k.faults) > 0 {
		f, k.faults = k.faults[0], k.faults[1:]
	}
	k.mu.Unlock()
	if k.APIKey != "" {
		auth := r.Header.Get("Authorization")
		if auth == "" {
			httpJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Missing API key"})
			return
		}
		if strings.TrimSpace(strings.TrimPrefix(auth, "Bearer ")) != k.APIKey {
			httpJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Invalid API key"})
			return
		}
	}
	switch f {
	case Busy:
		w.Header().Set("Retry-After", "0")
		httpJSON(w, http.StatusTooManyRequests, map[string]string{"detail": "No available REPLs"})
		return
	case ServerError:
		httpJSON(w, http.StatusInternalServerError, map[string]string{"detail": "REPL prep failed"})
		return
	case Unavailable:
		http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
		return
	case Drop:
		if hj, ok := w.(http.Hijacker); ok {
			conn, _, err := hj.Hijack()
			if err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case Garbage:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results": [ oops`)
		return
	}
	if r.URL.Path == "/verify" {
		k.verify(w, body)
		return
	}
	var req struct {
		Snippets []struct {
			ID   string `json:"id"`
			Code string `json:"code"`
		} `json:"snippets"`
		Timeout json.Number `json:"timeout"`
		Debug   bool        `json:"debug"`
		Reuse   *bool       `json:"reuse"`
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		httpJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": err.Error()})
		return
	}
	timeout, err := req.Timeout.Int64()
	if req.Timeout != "" && (err != nil || timeout < 0) {
		httpJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "timeout: Input should be a valid integer"})
		return
	}
	if req.Timeout == "" {
		timeout = 30
	}
	if len(req.Snippets) == 0 {
		httpJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "`snippets` must be non empty"})
		return
	}
	seen := map[string]bool{}
	for _, s := range req.Snippets {
		if seen[s.ID] {
			httpJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "`snippets` must have unique ids"})
			return
		}
		seen[s.ID] = true
	}
	var results []map[string]any
	for _, s := range req.Snippets {
		resp, errText := elaborate(s.Code, timeout)
		r := map[string]any{"id": s.ID, "time": 0.25}
		if errText != "" {
			r["error"] = errText
		} else {
			r["response"] = resp
		}
		results = append(results, r)
	}
	k.mu.Lock()
	k.snippets += len(req.Snippets)
	k.mu.Unlock()
	httpJSON(w, http.StatusOK, map[string]any{"results": results})
}

func (k *Kimina) verify(w http.ResponseWriter, body []byte) {
	var req struct {
		Codes []struct {
			CustomID any     `json:"custom_id"`
			Proof    *string `json:"proof"`
			Code     *string `json:"code"`
		} `json:"codes"`
		Timeout      int     `json:"timeout"`
		InfotreeType *string `json:"infotree_type"`
		DisableCache bool    `json:"disable_cache"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		httpJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": err.Error()})
		return
	}
	var results []map[string]any
	for _, c := range req.Codes {
		code := ""
		if c.Proof != nil {
			code = *c.Proof
		} else if c.Code != nil {
			code = *c.Code
		}
		resp, errText := elaborate(code, int64(req.Timeout))
		r := map[string]any{"custom_id": c.CustomID}
		if errText != "" {
			r["error"] = errText
		} else {
			resp["time"] = 0.5
			r["response"] = resp
		}
		results = append(results, r)
	}
	k.mu.Lock()
	k.snippets += len(req.Codes)
	k.mu.Unlock()
	httpJSON(w, http.StatusOK, map[string]any{"results": results})
}

func httpJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

var (
	markRE  = regexp.MustCompile(`--!\s*(\S+)\s*(.*)$`)
	sorryRE = regexp.MustCompile(`\bsorry\b`)
	declRE  = regexp.MustCompile(`^\s*(theorem|lemma|def|example)\s*([^\s:({\[]*)`)
)

// elaborate is the toy Lean of the fake server.
func elaborate(code string, timeout int64) (map[string]any, string) {
	var msgs, sorries []map[string]any
	decl, declLine, declCol := "", 0, 0
	warned := map[string]bool{}
	posOf := func(line, col int) map[string]int { return map[string]int{"line": line, "column": col} }
	for i, line := range strings.Split(code, "\n") {
		ln := i + 1
		text := line
		if m := markRE.FindStringSubmatchIndex(line); m != nil {
			text = line[:m[0]]
			name, arg := line[m[2]:m[3]], strings.TrimSpace(line[m[4]:m[5]])
			c := utf8.RuneCountInString(line[:m[0]])
			switch name {
			case "error":
				msgs = append(msgs, map[string]any{"severity": "error", "pos": posOf(ln, c), "endPos": posOf(ln, c+3), "data": arg})
			case "timeout":
				return nil, fmt.Sprintf("Lean REPL command timed out in %d seconds", timeout)
			case "replerror":
				return map[string]any{"message": "Lean error:\nfake REPL failure"}, ""
			case "sleep":
				d, _ := time.ParseDuration(arg)
				time.Sleep(d)
			}
		}
		if m := declRE.FindStringSubmatchIndex(text); m != nil {
			decl, declLine, declCol = text[m[2]:m[3]]+" "+text[m[4]:m[5]], ln, m[4]
		}
		for _, s := range sorryRE.FindAllStringIndex(text, -1) {
			c := utf8.RuneCountInString(text[:s[0]])
			sorries = append(sorries, map[string]any{"pos": posOf(ln, c), "endPos": posOf(ln, c+5), "goal": "⊢ True", "proofState": len(sorries)})
			if decl != "" && !warned[decl] {
				warned[decl] = true
				msgs = append(msgs, map[string]any{"severity": "warning", "pos": posOf(declLine, declCol), "endPos": posOf(declLine, declCol+3), "data": "declaration uses 'sorry'"})
			}
		}
	}
	resp := map[string]any{"env": 0}
	if len(msgs) > 0 {
		resp["messages"] = msgs
	}
	if len(sorries) > 0 {
		resp["sorries"] = sorries
	}
	return resp, ""
}
