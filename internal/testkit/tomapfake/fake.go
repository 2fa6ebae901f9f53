// Package tomapfake holds test doubles for the ToMap runner: Model, an
// answer function for internal/testkit/fakeopenai that plays every agent from the
// prompts it receives (deterministically, so reruns and replays can be
// compared), and Checker, an in-process lean.Checker that judges Lean text
// by simple rules and misbehaves on request (call errors, timeouts, Error
// results, delays). Neither knows any mathematics: they exercise the
// runner's plumbing, not a model's quality.
package tomapfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/tomap"
)

// Call is one request as the fake model sees it.
type Call struct {
	Role tomap.Role
	// Attempt is the answer's number within its conversation (1 for the
	// first request, 2 after one feedback message, …).
	Attempt  int
	User     string // the first user message
	Last     string // the last user message (feedback on later attempts)
	Seed     int
	Model    string
	Messages []openai.ChatCompletionMessage
}

// Model answers as every agent would, by rules:
//   - Decomposer: one unit per sentence of the proof (2..5 units, a chain,
//     the last named "main"), with "rev 0" in the last unit's hints.
//   - Rewriter: the candidate with its revision counter raised by one.
//   - Judge: scores (6+rev, 7+rev, 5+rev)/10 capped at 1, so each revision
//     dominates its parent and revision 5 passes the gate 1.0.
//   - Formalizer: `lemma <unit id> (n : ℕ) (h : 0 < n) : 0 < n := by sorry`.
//   - Prover: `omega`.
//   - End-to-end: one theorem with an `omega` proof.
//   - SF judge: faithful when the code has at least two declarations.
//
// Override answers instead when it returns ok. Safe for concurrent use.
type Model struct {
	Prompts  *tomap.Prompts
	Override func(c Call) (string, bool)

	mu    sync.Mutex
	calls map[tomap.Role]int
}

// NewModel returns a Model for the current prompt version.
func NewModel() *Model { return &Model{Prompts: tomap.MustPrompts()} }

// Calls returns how many requests each role received.
func (m *Model) Calls() map[tomap.Role]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[tomap.Role]int{}
	for k, v := range m.calls {
		out[k] = v
	}
	return out
}

// CallOf decodes a wire request.
func (m *Model) CallOf(req *openai.ChatCompletionRequest) Call {
	c := Call{Messages: req.Messages, Model: req.Model}
	if req.Seed != nil {
		c.Seed = *req.Seed
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "system":
			if c.Role == "" {
				c.Role = m.Prompts.RoleOf(msg.Content)
			}
		case "user":
			if c.User == "" {
				c.User = msg.Content
			}
			c.Last = msg.Content
			c.Attempt++
		}
	}
	return c
}

// Answer is a fakeopenai.Options.Answer.
func (m *Model) Answer(r fakeopenai.Request) string {
	c := m.CallOf(r.Chat)
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[tomap.Role]int{}
	}
	m.calls[c.Role]++
	m.mu.Unlock()
	if m.Override != nil {
		if s, ok := m.Override(c); ok {
			return s
		}
	}
	s := Default(c)
	if err := fitsSchema(r.Body, s); err != nil {
		// Unparseable: a run that expects the default answers fails.
		return "the fake model cannot answer: " + err.Error()
	}
	return s
}

// fitsSchema checks that a request carries its role's answer schema (as
// response_format json_schema) and that the answer is an instance of it.
func fitsSchema(body []byte, answer string) error {
	var b struct {
		RF struct {
			JSONSchema struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &b); err != nil || len(b.RF.JSONSchema.Schema) == 0 {
		return fmt.Errorf("the request has no response_format json_schema")
	}
	if err := fakeopenai.CheckSchema(b.RF.JSONSchema.Schema, answer); err != nil {
		return fmt.Errorf("the answer does not fit the request's schema: %v", err)
	}
	return nil
}

// RequestKey is a fakeopenai.Options.Key that counts requests by the
// runner's journal key, so a test can tell whether a journalled request was
// sent again.
func RequestKey(req *openai.ChatCompletionRequest) string {
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = llm.Message{Role: m.Role, Content: m.Content}
	}
	seed := 0
	if req.Seed != nil {
		seed = *req.Seed
	}
	temp := req.Temperature
	if temp > 0 && temp < 1e-30 {
		temp = 0 // llm sends a zero temperature as the smallest float32
	}
	// The llm client sends max_tokens (most compatible servers know it).
	//lint:ignore SA1019 see above
	return tomap.RequestKey(req.Model, temp, seed, req.MaxTokens, msgs)
}

func section(s, start string, ends ...string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	cut := len(s)
	for _, e := range ends {
		if j := strings.Index(s, e); j >= 0 && j < cut {
			cut = j
		}
	}
	return strings.TrimSpace(s[:cut])
}

var sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)

// Decompose is the fake Decomposer's answer for a proof.
func Decompose(proof string) tomap.Decomposition {
	var sents []string
	for _, s := range sentenceEnd.Split(proof, -1) {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			sents = append(sents, s)
		}
	}
	n := min(max(len(sents), 2), 5)
	for len(sents) < n {
		sents = append(sents, "the claim follows")
	}
	var d tomap.Decomposition
	for i := 0; i < n; i++ {
		u := tomap.Unit{ID: "s" + strconv.Itoa(i+1), Claim: clip(sents[i], 200), Variables: []string{"n : a natural number"},
			Assumptions: []string{"0 < n"}, Hints: "by the proof's sentence " + strconv.Itoa(i+1)}
		if i > 0 {
			u.Deps = []string{d.Units[i-1].ID}
		}
		if i == n-1 {
			u.ID = "main"
			u.Hints = "rev 0"
		}
		d.Units = append(d.Units, u)
	}
	return d
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Rev reads a fake decomposition's revision counter.
func Rev(d tomap.Decomposition) int {
	if len(d.Units) == 0 {
		return 0
	}
	var r int
	fmt.Sscanf(d.Units[len(d.Units)-1].Hints, "rev %d", &r)
	return r
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Scores is the fake judge's vector for a revision.
func Scores(rev int) tomap.Vector {
	f := func(base int) float64 { return float64(min(base+rev, 10)) / 10 }
	return tomap.Vector{f(6), f(7), f(5)}
}

// RubricJSON renders a judge answer.
func RubricJSON(v tomap.Vector) string {
	item := func(x float64) map[string]any {
		c := ""
		if x < 1 {
			c = "make the unit claims more explicit"
		}
		return map[string]any{"score": x, "critique": c}
	}
	return mustJSON(map[string]any{"faithful": item(v[0]), "provable": item(v[1]), "lean_friendly": item(v[2])})
}

var unitIDLine = regexp.MustCompile(`(?m)^Unit id: (\S+)`)
var declRE = regexp.MustCompile(`(?m)^\s*(lemma|theorem|axiom)\s+(\S+)`)

// Default is the rule-based answer for a call.
func Default(c Call) string {
	switch c.Role {
	case tomap.RoleDecomposer:
		return mustJSON(Decompose(section(c.User, "Proof:\n", "\n\nThe theorem's formal statement", "\n\nDecompose this proof")))
	case tomap.RoleRewriter:
		d, err := tomap.ParseDecomposition(section(c.User, "Candidate decomposition:\n", "\n\nJudges' scores"))
		if err != nil {
			return `{"units": []}`
		}
		d.Units[len(d.Units)-1].Hints = "rev " + strconv.Itoa(Rev(d)+1)
		return mustJSON(d)
	case tomap.RoleJudge:
		d, err := tomap.ParseDecomposition(section(c.User, "Decomposition:\n", "\n\nScore this decomposition"))
		if err != nil {
			return RubricJSON(tomap.Vector{})
		}
		return RubricJSON(Scores(Rev(d)))
	case tomap.RoleFormalizer:
		m := unitIDLine.FindStringSubmatch(c.User)
		id := "x"
		if m != nil {
			id = m[1]
		}
		return mustJSON(map[string]string{"lean": "lemma " + id + " (n : ℕ) (h : 0 < n) : 0 < n := by sorry"})
	case tomap.RoleProver:
		return `{"proof": "omega"}`
	case tomap.RoleEnd2End:
		return mustJSON(map[string]string{"lean": "theorem main_theorem (n : ℕ) (h : 0 < n) : 0 < n := by\n  omega"})
	case tomap.RoleSF:
		code := section(c.User, "Lean 4 formalization (the file header with imports is omitted):\n", "\n\nIs this formalization faithful?")
		n := len(declRE.FindAllString(code, -1))
		return mustJSON(map[string]any{"faithful": n >= 2, "reason": fmt.Sprintf("%d declarations", n)})
	}
	return "I do not know what you want."
}

// Checker is an in-process lean.Checker. Its default verdict on a snippet:
// an error for each declaration name declared twice and for each line with
// the token BROKEN; a `declaration uses 'sorry'` warning and a Sorry for
// each `sorry` (columns in code points, as Lean counts). Hook may replace the verdict of a snippet; CallErr may fail
// the whole call. Safe for concurrent use.
type Checker struct {
	Hook    func(s lean.Snippet) (lean.Result, bool)
	CallErr func(s lean.Snippet) error
	Delay   time.Duration

	calls  atomic.Int64
	closed atomic.Bool
	mu     sync.Mutex
	seen   []lean.Snippet
}

// Calls is the number of snippets checked.
func (c *Checker) Calls() int64 { return c.calls.Load() }

// Snippets returns every snippet checked so far.
func (c *Checker) Snippets() []lean.Snippet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]lean.Snippet(nil), c.seen...)
}

func (c *Checker) Backend() string { return "fake" }

func (c *Checker) Close() error { c.closed.Store(true); return nil }

// Check implements lean.Checker.
func (c *Checker) Check(ctx context.Context, snippets []lean.Snippet) ([]lean.Result, error) {
	if c.closed.Load() {
		return nil, errors.New("fake checker: Check after Close")
	}
	out := make([]lean.Result, 0, len(snippets))
	for _, s := range snippets {
		if c.Delay > 0 {
			select {
			case <-time.After(c.Delay):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.calls.Add(1)
		c.mu.Lock()
		c.seen = append(c.seen, s)
		c.mu.Unlock()
		if c.CallErr != nil {
			if err := c.CallErr(s); err != nil {
				return nil, err
			}
		}
		if c.Hook != nil {
			if r, ok := c.Hook(s); ok {
				r.ID, r.Backend = s.ID, "fake"
				out = append(out, r)
				continue
			}
		}
		out = append(out, Judge(s))
	}
	return out, nil
}

var sorryRE = regexp.MustCompile(`\bsorry\b`)

// Judge is the Checker's default verdict.
func Judge(s lean.Snippet) lean.Result {
	r := lean.Result{ID: s.ID, Backend: "fake", CodeLine0: 1, Time: time.Millisecond}
	declared := map[string]int{}
	declLine := 0
	for i, line := range strings.Split(s.Code, "\n") {
		ln := i + 1
		if m := declRE.FindStringSubmatch(line); m != nil {
			declLine = ln
			if first, dup := declared[m[2]]; dup {
				r.Messages = append(r.Messages, lean.Message{Severity: "error", Pos: lean.Pos{Line: ln, Column: 0},
					Data: fmt.Sprintf("'%s' has already been declared (line %d)", m[2], first)})
			} else {
				declared[m[2]] = ln
			}
		}
		if strings.Contains(line, "BROKEN") {
			r.Messages = append(r.Messages, lean.Message{Severity: "error", Pos: lean.Pos{Line: ln, Column: utf8.RuneCountInString(line[:strings.Index(line, "BROKEN")])},
				Data: "unknown identifier 'BROKEN'"})
		}
		if loc := sorryRE.FindStringIndex(line); loc != nil {
			r.Sorries = append(r.Sorries, lean.Sorry{Pos: lean.Pos{Line: ln, Column: utf8.RuneCountInString(line[:loc[0]])}, Goal: "⊢ 0 < n"})
			r.Messages = append(r.Messages, lean.Message{Severity: "warning", Pos: lean.Pos{Line: max(declLine, 1), Column: 0},
				Data: "declaration uses 'sorry'"})
		}
	}
	r.Pass = true
	for _, m := range r.Messages {
		if m.Severity == "error" {
			r.Pass = false
		}
	}
	r.Complete = r.Pass && len(r.Sorries) == 0
	return r
}
