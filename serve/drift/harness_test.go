package drift

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
	openai "github.com/sashabaranov/go-openai"
)

// testLibrary is a small hand-built library: premises, theorems using
// them, and the benchmark's own theorem (Lib.Bench.thm1), which a leak
// would pick first (its name sorts before the others').
func testLibrary() *memCorpus {
	return newCorpus(
		def("Lib.Prime", "(p : ℕ) : Prop", "p is a prime number"),
		def("Lib.Dvd", "(a b : ℕ) : Prop", "a divides b"),
		retrieval.Entry{Name: "Lib.Group", Kind: "class", Signature: "(G : Type*)", InformalStatement: "a group structure on G"},
		retrieval.Entry{Name: "Lib.Subgroup", Kind: "structure", Signature: "(G : Type*) [Lib.Group G]", InformalStatement: "a subgroup of a group", StatementDeps: []string{"Lib.Group"}},
		def("Lib.Normal", "{G : Type*} [Lib.Group G] (H : Lib.Subgroup G) : Prop", "a normal subgroup", "Lib.Group", "Lib.Subgroup"),
		def("Lib.index", "{G : Type*} [Lib.Group G] (H : Lib.Subgroup G) : ℕ", "the index of a subgroup", "Lib.Group", "Lib.Subgroup"),
		thm("Lib.Bench.thm1", "(p a b : ℕ) (hp : Lib.Prime p) (h : Lib.Dvd p (a * b)) : Lib.Dvd p a ∨ Lib.Dvd p b",
			"if a prime p divides a product ab then p divides a or b", "Lib.Prime", "Lib.Dvd"),
		thm("Lib.prime_dvd_mul", "{p a b : ℕ} (hp : Lib.Prime p) : Lib.Dvd p (a * b) ↔ Lib.Dvd p a ∨ Lib.Dvd p b",
			"a prime divides a product iff it divides a factor", "Lib.Prime", "Lib.Dvd"),
		thm("Lib.prime_two", ": Lib.Prime 2", "two is prime", "Lib.Prime"),
		thm("Lib.normal_of_index_two", "{G : Type*} [Lib.Group G] (H : Lib.Subgroup G) (h : Lib.index H = 2) : Lib.Normal H",
			"a subgroup of index two is normal", "Lib.Group", "Lib.Subgroup", "Lib.index", "Lib.Normal"),
	)
}

const (
	stmtPrime  = "If a prime p divides a product ab, then p divides a or b."
	stmtNormal = "Every subgroup of index two of a group is normal."
	refPrime   = "theorem thm1 (p a b : ℕ) (hp : Lib.Prime p) (h : Lib.Dvd p (a * b)) : Lib.Dvd p a ∨ Lib.Dvd p b := sorry"
	refNormal  = "theorem thm2 {G : Type*} [Lib.Group G] (H : Lib.Subgroup G) (h : Lib.index H = 2) : Lib.Normal H := sorry"
)

func testItems() []Item {
	return []Item{
		{Key: "Lib.Bench.thm1", Line: 1, Informal: stmtPrime, Reference: refPrime, Header: "import Lib", Gold: []string{"Lib.Prime", "Lib.Dvd", "Lib.Bench.thm1"}, Self: "Lib.Bench.thm1"},
		{Key: "Lib.Bench.thm2", Line: 2, Informal: stmtNormal, Reference: refNormal, Header: "import Lib", Gold: []string{"Lib.Group", "Lib.Subgroup", "Lib.index", "Lib.Normal"}, Self: "Lib.Bench.thm2"},
	}
}

func decompJSON(pairs ...string) string {
	var d decomposition
	for i := 0; i+1 < len(pairs); i += 2 {
		d.SubQueries = append(d.SubQueries, SubQuery{Informal: pairs[i], Formal: pairs[i+1]})
	}
	b, _ := json.Marshal(d)
	return string(b)
}

func leanAnswer(stmt string) string {
	return "Here is the formalization.\n\n```lean\n" + stmt + "\n```\n"
}

// conv is what the fake server saw of one chat request.
type conv struct {
	stage     string // "decompose" or "formalize"
	statement string
	round     int // repairs so far (assistant turns after the few-shot examples)
	seed      int
	temp      float32
	last      string // the last user message
	model     string
}

func parseConv(req *openai.ChatCompletionRequest, p *Prompts) conv {
	c := conv{temp: req.Temperature, model: req.Model}
	if req.Seed != nil {
		c.seed = *req.Seed
	}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Content == p.DecomposeSystem {
		c.stage = "decompose"
	} else {
		c.stage = "formalize"
	}
	assistants := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			assistants++
		}
		if m.Role == "user" {
			c.last = m.Content
			if i := strings.LastIndex(m.Content, "Informal statement:\n"); i >= 0 {
				s := m.Content[i+len("Informal statement:\n"):]
				if j := strings.Index(s, "\n\nWrite its formal"); j >= 0 {
					s = s[:j]
				}
				c.statement = strings.TrimSpace(s)
			}
		}
	}
	c.round = assistants
	if c.stage == "decompose" {
		c.round -= len(p.Examples)
	}
	return c
}

// script answers the fake server: per statement, decomposition answers by
// round, and a formalization function of the conversation. Unknown
// statements get a plain decomposition and a correct-looking answer.
type script struct {
	p         *Prompts
	mu        sync.Mutex
	decompose map[string][]string
	formalize map[string]func(c conv) string
	seen      []conv
}

func newScript(t testing.TB) *script {
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	return &script{p: p, decompose: map[string][]string{
		stmtPrime:  {decompJSON("prime number", "Lib.Prime p", "divisibility of natural numbers", "Lib.Dvd a b")},
		stmtNormal: {decompJSON("subgroup of a group", "Lib.Subgroup G", "index of a subgroup", "Lib.index H", "normal subgroup", "Lib.Normal H")},
	}, formalize: map[string]func(c conv) string{
		stmtPrime:  func(conv) string { return leanAnswer(strings.Replace(refPrime, ":= sorry", ":= by\n  exact foo", 1)) },
		stmtNormal: func(conv) string { return leanAnswer(refNormal) },
	}}
}

func (s *script) key(req *openai.ChatCompletionRequest) string {
	c := parseConv(req, s.p)
	return c.stage + ":" + c.statement
}

func (s *script) answer(r fakeopenai.Request) string {
	c := parseConv(r.Chat, s.p)
	s.mu.Lock()
	s.seen = append(s.seen, c)
	d := s.decompose[c.statement]
	f := s.formalize[c.statement]
	s.mu.Unlock()
	if c.stage == "decompose" {
		if c.round < len(d) {
			return d[c.round]
		}
		if len(d) > 0 {
			return d[len(d)-1]
		}
		return decompJSON("the statement", "Foo")
	}
	if f != nil {
		return f(c)
	}
	return leanAnswer("theorem t : True := trivial")
}

func (s *script) convs(stage, statement string) []conv {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []conv
	for _, c := range s.seen {
		if c.stage == stage && (statement == "" || c.statement == statement) {
			out = append(out, c)
		}
	}
	return out
}

// fakeServer starts the fake OpenAI server on the script; opts may set
// faults and latency.
func fakeServer(t testing.TB, s *script, opts fakeopenai.Options) *fakeopenai.Server {
	opts.Answer = s.answer
	opts.Key = s.key
	srv := fakeopenai.New(opts)
	t.Cleanup(srv.Close)
	return srv
}

func client(t testing.TB, srv *fakeopenai.Server, mod func(*llm.Config)) *llm.Client {
	cfg := llm.Config{BaseURLs: []string{srv.BaseURL()}, Model: "fake-model", Concurrency: 8, MaxRetries: 3,
		BackoffBase: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond, RequestTimeout: 5 * time.Second,
		Prices: llm.Prices{Prompt: 1, Completion: 2}}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func pipeline(t testing.TB, parts Parts, o Options) *Pipeline {
	if parts.Corpus == nil {
		c := testLibrary()
		parts.Corpus = c
		if parts.Search == nil {
			parts.Search = &wordSearcher{c: c}
		}
	}
	p, err := New(parts, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
