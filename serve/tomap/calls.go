package tomap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
)

// Agent is one model endpoint playing a role. Several roles may share a
// Client (and so its concurrency and rate limits).
type Agent struct {
	Client      *llm.Client
	Model       string
	Temperature float32
	MaxTokens   int
}

// Agents are the models of a run. The Rewriter is the Decomposer's model
// (ToMap evolves the Decomposer's output); the end-to-end baseline uses the
// Prover's model (it writes whole proofs).
type Agents struct {
	Decomposer, Formalizer, Prover, Judge, SF *Agent
}

// Record kinds in a problem's journal.
const (
	KindChat   = "chat"   // one paid model call
	KindLean   = "lean"   // one Lean check
	KindResult = "result" // one method's finished outcome on the problem
)

// Record is one line of a problem's journal. Chat and Lean records are
// replayed: a request whose key (the hash of the exact request) has a
// successful record is answered from the journal, so a rerun after a crash
// repeats no paid call, and methods that make the same request (ProofFlow
// and ToMap's seed decomposition; the executor on a decomposition two
// methods committed) share one answer.
type Record struct {
	Kind    string `json:"kind"`
	Variant string `json:"variant,omitempty"`
	// Step says where in the method the call was made (for people).
	Step string `json:"step,omitempty"`
	// Key is the request hash (chat) or the checked text's hash (lean).
	Key              string        `json:"key,omitempty"`
	Role             Role          `json:"role,omitempty"`
	Model            string        `json:"model,omitempty"`
	Content          string        `json:"content,omitempty"`
	PromptTokens     int64         `json:"prompt_tokens,omitempty"`
	CompletionTokens int64         `json:"completion_tokens,omitempty"`
	CostUSD          float64       `json:"cost_usd,omitempty"`
	Seconds          float64       `json:"seconds"`
	Error            string        `json:"error,omitempty"`
	Lean             *lean.Result  `json:"lean,omitempty"`
	Outcome          *Outcome      `json:"outcome,omitempty"`
	At               time.Time     `json:"at"`
	Snippet          *lean.Snippet `json:"snippet,omitempty"`
}

func validateRecord(r *Record) error {
	switch r.Kind {
	case KindChat:
		if r.Key == "" {
			return errors.New("chat record without key")
		}
	case KindLean:
		if r.Key == "" || r.Lean == nil {
			return errors.New("lean record without key or result")
		}
	case KindResult:
		if r.Outcome == nil || r.Variant == "" {
			return errors.New("result record without outcome or variant")
		}
	default:
		return fmt.Errorf("unknown record kind %q", r.Kind)
	}
	return nil
}

// RequestKey is the journal key of a chat request: the SHA-256 of what
// determines the answer (model, sampling parameters, messages). Identical
// requests carry the same seed, so one answer serves them all.
func RequestKey(model string, temperature float32, seed, maxTokens int, msgs []llm.Message) string {
	h := sha256.New()
	fmt.Fprintf(h, "driftkit-tomap-chat\x00%s\x00%s\x00%d\x00%d\x00", model, strconv.FormatFloat(float64(temperature), 'g', -1, 32), seed, maxTokens)
	for _, m := range msgs {
		fmt.Fprintf(h, "%s\x00%d\x00%s", m.Role, len(m.Content), m.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// leanKey is the journal key of a check: the backend's label (which Lean
// project answered) and the checked text.
func leanKey(label string, s lean.Snippet) string {
	h := sha256.New()
	fmt.Fprintf(h, "driftkit-tomap-lean\x00%s\x00%d\x00%s\x00%s", label, len(s.Header), s.Header, s.Code)
	return hex.EncodeToString(h.Sum(nil))
}

// Spend is what one method spent on one problem, counting calls answered
// from the journal as if made (their recorded tokens and seconds), so a
// method's numbers do not depend on crashes or on which method ran first.
type Spend struct {
	Calls            int     `json:"calls"`
	FreshCalls       int     `json:"fresh_calls"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"output_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	ModelSeconds     float64 `json:"model_seconds"`
	LeanCalls        int     `json:"lean_calls"`
	FreshLeanCalls   int     `json:"fresh_lean_calls"`
	LeanUnchecked    int     `json:"lean_unchecked"`
	LeanSeconds      float64 `json:"lean_seconds"`
}

// session is one problem's work: its journal, the replayable answers, and
// the Spend of the method running now. A session is used by one goroutine.
type session struct {
	r       *runner
	p       *Problem
	j       *journal.Journal[Record]
	chats   map[string]*Record
	checks  map[string]*Record
	results map[string]*Outcome
	variant string
	t       *Spend
}

func (s *session) addChat(rec *Record) {
	s.t.Calls++
	s.t.PromptTokens += rec.PromptTokens
	s.t.CompletionTokens += rec.CompletionTokens
	s.t.CostUSD += rec.CostUSD
	s.t.ModelSeconds += rec.Seconds
}

// chat sends one request (or replays its journalled answer). A failure of
// the call (the endpoint gave up after llm's retries, ctx cancelled) is an
// error of the problem; the content is not judged here.
func (s *session) chat(ctx context.Context, role Role, a *Agent, step string, msgs []llm.Message, seed int) (string, error) {
	temp := a.Temperature
	if role == RoleJudge || role == RoleSF {
		temp = 0
	}
	key := RequestKey(a.Model, temp, seed, a.MaxTokens, msgs)
	if rec, ok := s.chats[key]; ok {
		s.addChat(rec)
		return rec.Content, nil
	}
	req := llm.ChatRequest{Model: a.Model, Messages: msgs, JSON: true, Schema: roleSchemas[role], MaxTokens: a.MaxTokens, Temperature: &temp, Seed: &seed}
	t0 := time.Now()
	resp, err := a.Client.Chat(ctx, req)
	rec := &Record{Kind: KindChat, Variant: s.variant, Step: step, Key: key, Role: role, Model: a.Model,
		Content: resp.Content, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
		CostUSD: resp.Usage.CostUSD, Seconds: time.Since(t0).Seconds(), At: time.Now().UTC()}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		rec.Error = err.Error()
		rec.Content = ""
		if jerr := s.j.Append(*rec); jerr != nil {
			return "", jerr
		}
		return "", fmt.Errorf("%s: %w", step, err)
	}
	if err := s.j.Append(*rec); err != nil {
		return "", err
	}
	s.chats[key] = rec
	s.t.FreshCalls++
	s.addChat(rec)
	return rec.Content, nil
}

// check runs one Lean check (or replays a journalled verdict). A verdict
// with Result.Error (timeout, crashed worker) is journalled but not
// replayed: it says nothing about the code. The call's error (backend
// unusable, ctx cancelled) is an error of the problem.
func (s *session) check(ctx context.Context, step string, snip lean.Snippet) (lean.Result, error) {
	key := leanKey(s.r.leanLabel, snip)
	s.t.LeanCalls++
	if rec, ok := s.checks[key]; ok {
		s.t.LeanSeconds += rec.Seconds
		return *rec.Lean, nil
	}
	res, err := s.r.cfg.Checker.Check(ctx, []lean.Snippet{snip})
	if err != nil {
		if ctx.Err() != nil {
			return lean.Result{}, ctx.Err()
		}
		return lean.Result{}, fmt.Errorf("%s: %w", step, err)
	}
	if len(res) != 1 {
		return lean.Result{}, fmt.Errorf("%s: lean: %d results for one snippet", step, len(res))
	}
	r := res[0]
	rec := &Record{Kind: KindLean, Variant: s.variant, Step: step, Key: key, Lean: &r, Seconds: r.Time.Seconds(), At: time.Now().UTC()}
	if r.Error != "" {
		// Keep the text that could not be checked, to reproduce it.
		rec.Snippet = &lean.Snippet{ID: snip.ID, Code: snip.Code}
	}
	if err := s.j.Append(*rec); err != nil {
		return lean.Result{}, err
	}
	s.t.FreshLeanCalls++
	s.t.LeanSeconds += rec.Seconds
	if r.Error != "" {
		s.t.LeanUnchecked++
	} else {
		s.checks[key] = rec
	}
	return r, nil
}

// verified reports whether a Lean backend checks this run's code.
func (s *session) verified() bool { return s.r.cfg.Checker != nil }
