package tomap_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/leakcheck"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
	"github.com/driftkit/driftkit/internal/testkit/torntest"
	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/serve/tomap"
)

func TestMain(m *testing.M) {
	serveFakeIfChild()
	// A run, its workers or a stream left running fails the package.
	leakcheck.Main(m)
}

// testProblems are small synthetic problems; their proofs have 2..4
// sentences, so the fake decomposes them into 2..4 units.
func testProblems(n int) []tomap.Problem {
	var ps []tomap.Problem
	for i := 0; i < n; i++ {
		proof := fmt.Sprintf("Problem %d. First note that n is positive. Hence n + %d is positive.", i, i)
		if i%2 == 1 {
			proof += " Therefore the claim holds."
		}
		ps = append(ps, tomap.Problem{Key: fmt.Sprintf("test/%d", i), Theorem: fmt.Sprintf("For every positive n, n + %d is positive.", i),
			Proof: proof, Line: i + 1})
	}
	return ps
}

func newServer(t testing.TB, m *tomapfake.Model, opts fakeopenai.Options) *fakeopenai.Server {
	t.Helper()
	opts.Answer = m.Answer
	if opts.Key == nil {
		opts.Key = tomapfake.RequestKey
	}
	s := fakeopenai.New(opts)
	t.Cleanup(s.Close)
	return s
}

func newAgents(t testing.TB, url string) tomap.Agents {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURLs: []string{url}, APIKey: "k", Model: "fake-model", Concurrency: 8, MaxRetries: 2,
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	a := func(model string) *tomap.Agent {
		return &tomap.Agent{Client: c, Model: model, Temperature: 0.7, MaxTokens: 1024}
	}
	return tomap.Agents{Decomposer: a("dec"), Formalizer: a("form"), Prover: a("prov"), Judge: a("judge"), SF: a("sf")}
}

func newConfig(t testing.TB, ag tomap.Agents, ck lean.Checker, vs ...tomap.Variant) tomap.Config {
	if len(vs) == 0 {
		vs = []tomap.Variant{{Method: tomap.MethodToMap, Rounds: 10}}
	}
	return tomap.Config{Agents: ag, Checker: ck, Variants: vs, Jobs: 3, Out: t.TempDir(), Protocol: "test"}
}

func run(t testing.TB, cfg tomap.Config, ps []tomap.Problem) *tomap.Summary {
	t.Helper()
	sum, err := tomap.Run(context.Background(), cfg, ps)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func readOutcomes(t testing.TB, dir string) map[string]*tomap.Outcome {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, tomap.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*tomap.Outcome{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var o tomap.Outcome
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		out[o.Problem+" "+o.Variant] = &o
	}
	return out
}

func variant(s *tomap.Summary, name string) tomap.VariantSummary {
	for _, v := range s.Variants {
		if v.Variant == name {
			return v
		}
	}
	panic("no variant " + name)
}

func val(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func TestToMapEvolvesToTheGate(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	ck := &tomapfake.Checker{}
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), ck)
	ps := testProblems(3)
	sum := run(t, cfg, ps)
	v := variant(sum, "tomap-r10")
	if v.Finished != 3 || v.Errors != 0 {
		t.Fatalf("%+v", v)
	}
	if val(v.SC.Value) != 1 || val(v.SF.Value) != 1 || val(v.SCAndSF.Value) != 1 || val(v.ProvedRate.Value) != 1 || val(v.FormalizedRate.Value) != 1 {
		t.Errorf("metrics %+v", v)
	}
	// The fake judge's vectors reach (1,1,1) at revision 5.
	if val(v.RoundsUsed.Value) != 5 || v.GateCommits != 3 {
		t.Errorf("rounds used %v, gate commits %d", val(v.RoundsUsed.Value), v.GateCommits)
	}
	o := readOutcomes(t, cfg.Out)["test/1 tomap-r10"]
	if o == nil {
		t.Fatal("no outcome")
	}
	ev := o.Evolution
	if len(ev.Candidates) != 6 || ev.CommittedBy != "gate" || ev.Committed != 5 || *o.Committed != (tomap.Vector{1, 1, 1}) {
		t.Errorf("evolution %+v", ev)
	}
	for i, r := range ev.Rounds {
		// Each revision dominates its parent, which is discarded.
		if r.Outcome != "admitted" || r.Parent != i || r.Child != i+1 || len(r.Evicted) != 1 || r.Evicted[0] != i || len(r.Pool) != 1 {
			t.Errorf("round %+v", r)
		}
	}
	if o.Units != 4 || *o.UnitsProved != 4 || o.LeanCalls != 2*4+1 || o.Verification != "fake" {
		t.Errorf("units %d proved %v lean calls %d", o.Units, *o.UnitsProved, o.LeanCalls)
	}
	// seed decompose + seed judge + 5 × (rewrite + judge) + 4 × (formalize + prove) + SF
	if o.Calls != 2+10+8+1 || o.CompletionTokens == 0 || o.WallSeconds <= 0 {
		t.Errorf("calls %d tokens %d wall %v", o.Calls, o.CompletionTokens, o.WallSeconds)
	}
	if !strings.Contains(o.Code, "lemma main (n : ℕ) (h : 0 < n) : 0 < n := by\n  omega") || !strings.HasPrefix(o.Code, "import Mathlib") {
		t.Errorf("code:\n%s", o.Code)
	}
	lf, err := os.ReadFile(filepath.Join(cfg.Out, tomap.LeanDir, "tomap-r10", tomap.FileName("test/1")+".lean"))
	if err != nil || string(lf) != o.Code {
		t.Errorf("lean file: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(cfg.Out, tomap.SummaryMD))
	for _, want := range []string{"| tomap-r10 | 3/3 | 1.000 (3/3) |", "Lean verification: fake", "wall s/problem"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
}

func TestScalingStudySharesCalls(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	vs, err := tomap.ParseVariants("tomap,proofflow,end2end", "0,1,3,5,10")
	if err != nil {
		t.Fatal(err)
	}
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, vs...)
	ps := testProblems(4)
	sum := run(t, cfg, ps)
	want := map[string]struct {
		rounds float64
		by     string
	}{"tomap-r0": {0, "rounds"}, "tomap-r1": {1, "rounds"}, "tomap-r3": {3, "rounds"}, "tomap-r5": {5, "gate"}, "tomap-r10": {5, "gate"}, "proofflow": {0, "single"}}
	outs := readOutcomes(t, cfg.Out)
	for name, w := range want {
		v := variant(sum, name)
		if v.Finished != 4 || val(v.RoundsUsed.Value) != w.rounds {
			t.Errorf("%s: finished %d rounds %v, want %v", name, v.Finished, val(v.RoundsUsed.Value), w.rounds)
		}
		if o := outs["test/0 "+name]; o.CommittedBy != w.by {
			t.Errorf("%s committed by %q, want %q", name, o.CommittedBy, w.by)
		}
	}
	e2e := variant(sum, "end2end")
	if val(e2e.SC.Value) != 1 || val(e2e.SF.Value) != 0 || e2e.FormalizedRate.Value != nil {
		t.Errorf("end2end %+v", e2e)
	}
	// Every distinct request reached the server once: variants share calls.
	used := 0
	for _, o := range outs {
		used += o.Calls
	}
	stats := srv.Stats()
	for k, st := range stats {
		if st.Requests != 1 {
			t.Errorf("request %s… sent %d times", k[:12], st.Requests)
		}
	}
	if int(srv.Requests()) >= used || sum.Spend.FreshCalls != int(srv.Requests()) {
		t.Errorf("server saw %d requests, variants used %d, spend says %d", srv.Requests(), used, sum.Spend.FreshCalls)
	}
	// ProofFlow's decomposition is ToMap's seed: with no rounds the two commit
	// the same decomposition and get the same execution.
	pf, r0 := outs["test/1 proofflow"], outs["test/1 tomap-r0"]
	if pf.Execution.Decomposition != r0.Execution.Decomposition || pf.Code != r0.Code || *pf.SC != *r0.SC {
		t.Errorf("proofflow and tomap-r0 differ: %s vs %s", pf.Execution.Decomposition, r0.Execution.Decomposition)
	}
	if r0.Calls != pf.Calls+1 { // + the seed's judge
		t.Errorf("tomap-r0 used %d calls, proofflow %d", r0.Calls, pf.Calls)
	}
}

// conversation returns the requests of a role in one conversation order.
type recorder struct {
	mu    sync.Mutex
	calls []tomapfake.Call
}

func (r *recorder) add(c tomapfake.Call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

func (r *recorder) of(role tomap.Role) []tomapfake.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []tomapfake.Call
	for _, c := range r.calls {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

const (
	cyclicAnswer  = `{"units": [{"id": "a", "claim": "c", "depends_on": ["main"]}, {"id": "main", "claim": "d", "depends_on": ["a"]}]}`
	forwardAnswer = `{"units": [{"id": "a", "claim": "c", "depends_on": ["b"]}, {"id": "b", "claim": "c"}, {"id": "main", "claim": "d", "depends_on": ["a"]}]}`
)

func TestBrokenDecompositionsAreFedBack(t *testing.T) {
	rec := &recorder{}
	m := tomapfake.NewModel()
	m.Override = func(c tomapfake.Call) (string, bool) {
		rec.add(c)
		if c.Role != tomap.RoleDecomposer {
			return "", false
		}
		switch {
		case strings.Contains(c.User, "positive n, n + 0"): // problem 0: cyclic, forward, garbage, then good
			switch c.Attempt {
			case 1:
				return cyclicAnswer, true
			case 2:
				return forwardAnswer, true
			case 3:
				return "Here is the decomposition you asked for!", true
			}
		case strings.Contains(c.User, "positive n, n + 1"): // problem 1: never valid
			return cyclicAnswer, true
		}
		return "", false
	}
	srv := newServer(t, m, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodProofFlow})
	sum := run(t, cfg, testProblems(3))
	outs := readOutcomes(t, cfg.Out)
	o0 := outs["test/0 proofflow"]
	if s := o0.Evolution.Seeds[0]; s.Count != 4 || len(s.Rejected) != 3 || *o0.SC != true {
		t.Errorf("problem 0 seed %+v, sc %v", s, *o0.SC)
	}
	var conv []tomapfake.Call
	for _, c := range rec.of(tomap.RoleDecomposer) {
		if strings.Contains(c.User, "positive n, n + 0") {
			conv = append(conv, c)
		}
	}
	if len(conv) != 4 {
		t.Fatalf("%d decomposer requests for problem 0", len(conv))
	}
	for i, want := range []string{"", "dependency cycle: a → main → a", "forward reference", "does not start with a JSON object"} {
		c := conv[i]
		if len(c.Messages) != 2+2*i {
			t.Errorf("attempt %d has %d messages: not the same conversation", i+1, len(c.Messages))
		}
		if want != "" && !strings.Contains(c.Last, want) {
			t.Errorf("attempt %d feedback lacks %q:\n%s", i+1, want, c.Last)
		}
	}
	o1 := outs["test/1 proofflow"]
	if o1.Failure != "decomposition" || *o1.SC || *o1.SF || o1.Evolution.Seeds[0].Count != 4 || o1.Code != "" {
		t.Errorf("problem 1 %+v", o1)
	}
	if v := variant(sum, "proofflow"); v.DecompositionFailures != 1 || v.SC.Count != 2 || v.SC.Total != 3 {
		t.Errorf("summary %+v", v)
	}
}

func TestJudgeGarbageAndRewriterRefusals(t *testing.T) {
	rec := &recorder{}
	m := tomapfake.NewModel()
	m.Override = func(c tomapfake.Call) (string, bool) {
		rec.add(c)
		p0 := strings.Contains(c.User, "positive n, n + 0")
		switch {
		case c.Role == tomap.RoleJudge && p0 && strings.Contains(c.User, `"rev 0"`):
			return `{"faithful": "excellent"}`, true // the seed's judge never answers usably
		case c.Role == tomap.RoleJudge && strings.Contains(c.User, "positive n, n + 1") && c.Attempt == 1:
			return "```json\n{\"faithful\": 0.9}\n```", true // repaired on the second answer
		case c.Role == tomap.RoleRewriter && strings.Contains(c.User, "positive n, n + 2"):
			return "I'm sorry, but I can't help with rewriting this proof.", true
		}
		return "", false
	}
	srv := newServer(t, m, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodToMap, Rounds: 3})
	sum := run(t, cfg, testProblems(3))
	outs := readOutcomes(t, cfg.Out)

	o0 := outs["test/0 tomap-r3"]
	seed := o0.Evolution.Candidates[0]
	if !seed.JudgeFailed || seed.Rubric.Scores != (tomap.Vector{}) || !strings.Contains(seed.JudgeError, "faithful") {
		t.Errorf("seed %+v", seed)
	}
	// The revision is judged normally and dominates the unjudged seed.
	if r := o0.Evolution.Rounds[0]; r.Outcome != "admitted" || len(r.Evicted) != 1 {
		t.Errorf("round 1 %+v", r)
	}
	for _, c := range rec.of(tomap.RoleRewriter) {
		if strings.Contains(c.User, "positive n, n + 0") && strings.Contains(c.User, `"rev 0"`) && !strings.Contains(c.User, "no usable verdict") {
			t.Errorf("rewriter of the unjudged seed was not told:\n%s", c.User)
		}
	}

	o1 := outs["test/1 tomap-r3"]
	if c := o1.Evolution.Candidates[0]; c.JudgeFailed || c.Rubric.Scores != tomapfake.Scores(0) {
		t.Errorf("repaired judge: %+v", c)
	}

	o2 := outs["test/2 tomap-r3"]
	if len(o2.Evolution.Rounds) != 3 || o2.CommittedBy != "rounds" || o2.Evolution.Committed != 0 || o2.RoundsUsed != 3 {
		t.Errorf("refusals: %+v", o2.Evolution)
	}
	for _, r := range o2.Evolution.Rounds {
		if r.Outcome != "rewrite_failed" || r.Attempts.Count != 4 {
			t.Errorf("round %+v", r)
		}
	}
	var tried []string
	for _, c := range rec.of(tomap.RoleRewriter) {
		if strings.Contains(c.User, "positive n, n + 2") && c.Attempt == 1 {
			tried = append(tried, c.User)
		}
	}
	if len(tried) != 3 || !strings.Contains(tried[2], "2 earlier revision(s)") {
		t.Errorf("rewriter prompts do not count failed revisions (%d)", len(tried))
	}
	if *o2.SC != true {
		t.Error("the seed still executes after refusals")
	}
	if v := variant(sum, "tomap-r3"); v.JudgeFailures != 1 {
		t.Errorf("judge failures %d", v.JudgeFailures)
	}
}

func TestExecutorFeedsLeanErrorsBack(t *testing.T) {
	rec := &recorder{}
	m := tomapfake.NewModel()
	m.Override = func(c tomapfake.Call) (string, bool) {
		rec.add(c)
		if strings.Contains(c.User, "positive n, n + 1") && c.Role == tomap.RoleFormalizer && strings.Contains(c.User, "Unit id: main") {
			return `{"lean": "lemma main : True := by trivial"}`, true // never well-formed: the theorem is missing
		}
		if !strings.Contains(c.User, "positive n, n + 0") {
			return "", false
		}
		switch {
		case c.Role == tomap.RoleFormalizer && strings.Contains(c.User, "Unit id: s1") && c.Attempt == 1:
			return `{"lean": "lemma s1 (n : ℕ) (h : 0 < BROKEN) : 0 < n := by sorry"}`, true
		case c.Role == tomap.RoleProver && strings.Contains(c.User, "lemma s1 ") && c.Attempt <= 2:
			return `{"proof": "intro x\nexact BROKEN x"}`, true
		case c.Role == tomap.RoleProver && strings.Contains(c.User, "lemma s2 "):
			return `{"proof": "exact BROKEN"}`, true // never proved
		case c.Role == tomap.RoleFormalizer && strings.Contains(c.User, "Unit id: main"):
			return `{"lean": "lemma s1 : True := by sorry"}`, true // wrong name every time
		}
		return "", false
	}
	srv := newServer(t, m, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodProofFlow})
	sum := run(t, cfg, testProblems(2))
	o := readOutcomes(t, cfg.Out)["test/0 proofflow"]
	us := o.Execution.Units
	if len(us) != 3 {
		t.Fatalf("%d units", len(us))
	}
	if !us[0].Formalized || us[0].Formalize.Count != 2 || !us[0].Proved || us[0].Prove.Count != 3 {
		t.Errorf("s1 %+v", us[0])
	}
	if !us[1].Formalized || us[1].Proved || us[1].Prove.Count != 4 || us[1].Code != "" {
		t.Errorf("s2 %+v", us[1])
	}
	if us[2].Formalized || us[2].Statement != "" || us[2].Formalize.Count != 4 || !strings.Contains(us[2].Formalize.Rejected[0], `named "s1"`) {
		t.Errorf("main %+v", us[2])
	}
	if *o.SC || *o.UnitsFormalized != 2 || *o.UnitsProved != 1 || val(o.FormalizedRate) != 2.0/3 {
		t.Errorf("metrics sc %v formalized %d proved %d", *o.SC, *o.UnitsFormalized, *o.UnitsProved)
	}
	if o.Execution.Check == nil || o.Execution.Check.Complete || !strings.Contains(o.Code, "lemma s2 (n : ℕ) (h : 0 < n) : 0 < n := by sorry") ||
		!strings.Contains(o.Code, "-- (not formalized)") {
		t.Errorf("file:\n%s", o.Code)
	}
	// The Lean errors reached the models, with lines relative to their code.
	var f2, p2 string
	for _, c := range rec.of(tomap.RoleFormalizer) {
		if strings.Contains(c.User, "Unit id: s1") && strings.Contains(c.User, "n + 0") && c.Attempt == 2 {
			f2 = c.Last
		}
	}
	for _, c := range rec.of(tomap.RoleProver) {
		if strings.Contains(c.User, "lemma s1 ") && strings.Contains(c.User, "n + 0") && c.Attempt == 2 {
			p2 = c.Last
		}
	}
	if !strings.Contains(f2, "line 1, column 26: error: unknown identifier 'BROKEN'") {
		t.Errorf("formalizer feedback:\n%s", f2)
	}
	if !strings.Contains(p2, "line 3, column 8: error: unknown identifier 'BROKEN'") {
		t.Errorf("prover feedback:\n%s", p2)
	}
	// The context of a later unit holds the earlier ones as axioms.
	var sawAxiom bool
	for _, s := range cfg.Checker.(*tomapfake.Checker).Snippets() {
		if strings.HasPrefix(s.Code, "axiom s1 (n : ℕ) (h : 0 < n) : 0 < n\n\nlemma s2") {
			sawAxiom = true
		}
		if s.Header == "" || !strings.Contains(s.Header, "import Mathlib") {
			t.Errorf("snippet without the fixed header: %+v", s)
		}
	}
	if !sawAxiom {
		t.Error("no check of s2 in the context of s1")
	}
	// Problem 1: every unit but the theorem proved; the file Lean accepts
	// lacks the theorem, which is not SC.
	o1 := readOutcomes(t, cfg.Out)["test/1 proofflow"]
	if *o1.SC || !o1.Execution.Check.Complete || *o1.UnitsProved != 3 || o1.Units != 4 {
		t.Errorf("problem 1: sc %v, file complete %v, proved %d of %d", *o1.SC, o1.Execution.Check.Complete, *o1.UnitsProved, o1.Units)
	}
	if v := variant(sum, "proofflow"); v.SC.Count != 0 || v.SC.Total != 2 {
		t.Errorf("summary SC %+v", v.SC)
	}
}

func TestVerificationSkippedIsNeverPassed(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	vs, _ := tomap.ParseVariants("tomap,proofflow,end2end", "2")
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), nil, vs...)
	sum := run(t, cfg, testProblems(2))
	if sum.Verification != "skipped" {
		t.Errorf("verification %q", sum.Verification)
	}
	for _, v := range sum.Variants {
		if v.SC.Value != nil || v.SCAndSF.Value != nil || v.FormalizedRate.Value != nil || v.ProvedRate.Value != nil {
			t.Errorf("%s reports verification metrics without Lean: %+v", v.Variant, v)
		}
		if v.SF.Value == nil || v.Finished != 2 {
			t.Errorf("%s: SF not judged or unfinished", v.Variant)
		}
	}
	for k, o := range readOutcomes(t, cfg.Out) {
		if o.Verification != "skipped" || o.SC != nil || o.LeanCalls != 0 {
			t.Errorf("%s: %+v", k, o)
		}
		if o.Method != tomap.MethodEnd2End && o.Execution.Units[0].Formalized {
			t.Errorf("%s: unit marked formalized without Lean", k)
		}
	}
	md, _ := os.ReadFile(filepath.Join(cfg.Out, tomap.SummaryMD))
	if !strings.Contains(string(md), "Lean verification: skipped") || !strings.Contains(string(md), "| n/a | ") {
		t.Errorf("summary.md:\n%s", md)
	}
}

func TestLeanMisbehaviourAndRecovery(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	var mu sync.Mutex
	timedOut := map[string]bool{}
	ck := &tomapfake.Checker{
		// Every unit check times out once, then is checked; problem 2's
		// assembled file never gets checked.
		Hook: func(s lean.Snippet) (lean.Result, bool) {
			mu.Lock()
			defer mu.Unlock()
			if s.ID == "test/2" {
				return lean.Result{Error: "repl worker crashed"}, true
			}
			if !strings.Contains(s.ID, "/s") && !strings.Contains(s.ID, "/main") || timedOut[s.ID+s.Code] {
				return lean.Result{}, false
			}
			timedOut[s.ID+s.Code] = true
			return lean.Result{Error: "timeout after 5m0s"}, true
		},
		// Problem 1's checks fail as calls (not as verdicts).
		CallErr: func(s lean.Snippet) error {
			if strings.HasPrefix(s.ID, "test/1") {
				return errors.New("kimina: 3 results for 1 snippet")
			}
			return nil
		},
	}
	ag := newAgents(t, srv.BaseURL())
	cfg := newConfig(t, ag, ck, tomap.Variant{Method: tomap.MethodProofFlow})
	ps := testProblems(3)
	sum := run(t, cfg, ps)
	v := variant(sum, "proofflow")
	if v.Finished != 2 || v.Errors != 1 || v.LeanUnchecked == 0 {
		t.Fatalf("%+v", v)
	}
	outs := readOutcomes(t, cfg.Out)
	if o := outs["test/1 proofflow"]; o.Status != "error" || !strings.Contains(o.Error, "3 results for 1 snippet") {
		t.Errorf("problem 1: %+v", o)
	}
	o0 := outs["test/0 proofflow"]
	if !*o0.SC || o0.LeanUnchecked != 6 || o0.Execution.Units[0].Formalize.Count != 2 || o0.Execution.Units[0].Prove.Count != 2 ||
		!strings.Contains(o0.Execution.Units[0].Formalize.Rejected[0], "could not check the code: timeout") {
		t.Errorf("problem 0 after timeouts: sc %v unchecked %d units %+v", *o0.SC, o0.LeanUnchecked, o0.Execution.Units[0])
	}
	// An assembled file Lean could not check is not counted as passed.
	if o2 := outs["test/2 proofflow"]; *o2.SC || o2.Execution.Check.Error == "" || *o2.UnitsProved != 3 {
		t.Errorf("problem 2 with an unchecked file: %+v", o2)
	}
	md, _ := os.ReadFile(filepath.Join(cfg.Out, tomap.SummaryMD))
	if !strings.Contains(string(md), "2/3 (1 errors)") || !strings.Contains(string(md), "Lean checks that did not run") {
		t.Errorf("summary.md:\n%s", md)
	}
	// A rerun with the backend back retries only problem 1, and repeats
	// none of its paid calls.
	before := srv.Stats()
	ck.CallErr = nil
	sum = run(t, cfg, ps)
	if v := variant(sum, "proofflow"); v.Finished != 3 || v.Errors != 0 {
		t.Fatalf("rerun %+v", v)
	}
	for k, st := range srv.Stats() {
		if b, ok := before[k]; ok && b.Requests != st.Requests {
			t.Errorf("request %s… repeated on the rerun", k[:12])
		}
	}
}

func TestLLMFailureStaysWithItsProblem(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if r.Chat != nil && strings.Contains(r.Chat.Messages[len(r.Chat.Messages)-1].Content, "positive n, n + 1") {
			return fakeopenai.ServerError
		}
		return fakeopenai.OK
	}})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodToMap, Rounds: 2})
	sum := run(t, cfg, testProblems(3))
	v := variant(sum, "tomap-r2")
	if v.Finished != 2 || v.Errors != 1 {
		t.Fatalf("%+v", v)
	}
	o := readOutcomes(t, cfg.Out)["test/1 tomap-r2"]
	if o.Status != "error" || !strings.Contains(o.Error, "HTTP 500") {
		t.Errorf("%+v", o)
	}
	// The failed call is journalled (for the record) but not replayed.
	rep, err := journal.Read("j", mustOpen(t, filepath.Join(cfg.Out, tomap.JournalDir, tomap.FileName("test/1")+".jsonl")), journal.Options[tomap.Record]{})
	if err != nil || len(rep.Records) != 2 || rep.Records[0].Error == "" || rep.Records[1].Kind != tomap.KindResult {
		t.Errorf("journal of the failed problem: %+v %v", rep, err)
	}
}

func mustOpen(t testing.TB, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestCancelAndResume(t *testing.T) {
	m := tomapfake.NewModel()
	ctx, cancel := context.WithCancel(context.Background())
	var n sync.Mutex
	count := 0
	m.Override = func(c tomapfake.Call) (string, bool) {
		n.Lock()
		count++
		if count == 40 {
			cancel()
		}
		n.Unlock()
		return "", false
	}
	srv := newServer(t, m, fakeopenai.Options{Latency: 2 * time.Millisecond})
	vs, _ := tomap.ParseVariants("tomap,proofflow,end2end", "0,3,10")
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, vs...)
	ps := testProblems(5)
	if _, err := tomap.Run(ctx, cfg, ps); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, tomap.SummaryJSON)); err == nil {
		t.Error("an interrupted run wrote a summary")
	}
	asked := map[string]int{}
	stats := srv.Stats()
	for _, k := range journalKeys(t, cfg.Out) {
		if stats[k].Requests == 0 {
			t.Fatalf("journal key %s… unknown to the server", k[:12])
		}
		asked[k] = stats[k].Requests
	}
	sum := run(t, cfg, ps)
	repeated := 0
	for k, st := range srv.Stats() {
		if n, ok := asked[k]; ok && st.Requests != n {
			t.Errorf("journalled request %s… sent again after the interruption", k[:12])
		}
		if st.Requests > 1 {
			repeated++ // in flight when the run was cancelled: lost, asked again
		}
	}
	if len(asked) == 0 || repeated > cfg.Jobs {
		t.Errorf("%d journalled before the interruption, %d repeated", len(asked), repeated)
	}
	// Same numbers as an uninterrupted run.
	m2 := tomapfake.NewModel()
	srv2 := newServer(t, m2, fakeopenai.Options{})
	cfg2 := newConfig(t, newAgents(t, srv2.BaseURL()), &tomapfake.Checker{}, vs...)
	clean := run(t, cfg2, ps)
	compareSummaries(t, sum, clean)
}

// journalKeys lists the request keys of every successful chat record.
func journalKeys(t testing.TB, out string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, tomap.JournalDir, "*.jsonl"))
	var keys []string
	for _, f := range files {
		rep, err := journal.Read(f, mustOpen(t, f), journal.Options[tomap.Record]{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Records {
			if r.Kind == tomap.KindChat && r.Error == "" {
				keys = append(keys, r.Key)
			}
		}
	}
	return keys
}

func compareSummaries(t *testing.T, a, b *tomap.Summary) {
	t.Helper()
	for i := range a.Variants {
		x, y := a.Variants[i], b.Variants[i]
		if x.Finished != y.Finished || x.SC != y.SC && (val(x.SC.Value) != val(y.SC.Value)) || val(x.SF.Value) != val(y.SF.Value) ||
			val(x.ProvedRate.Value) != val(y.ProvedRate.Value) || val(x.OutputTokens.Value) != val(y.OutputTokens.Value) ||
			val(x.RoundsUsed.Value) != val(y.RoundsUsed.Value) || val(x.LeanCalls.Value) != val(y.LeanCalls.Value) ||
			val(x.ModelCalls.Value) != val(y.ModelCalls.Value) {
			t.Errorf("%s differs after resume:\n%+v\n%+v", x.Variant, x, y)
		}
	}
	if a.Spend.FreshCalls != b.Spend.FreshCalls || a.Spend.CompletionTokens != b.Spend.CompletionTokens {
		t.Errorf("spend differs: %+v vs %+v", a.Spend, b.Spend)
	}
}

func TestConcurrencyWithinLimits(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{Latency: 5 * time.Millisecond})
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.BaseURL()}, APIKey: "k", Model: "m", Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := &tomap.Agent{Client: c, Model: "m"}
	cfg := newConfig(t, tomap.Agents{Decomposer: a, Formalizer: a, Prover: a, Judge: a, SF: a}, &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodToMap, Rounds: 1})
	cfg.Jobs = 6
	sum := run(t, cfg, testProblems(6))
	if v := variant(sum, "tomap-r1"); v.Finished != 6 {
		t.Fatalf("%+v", v)
	}
	if srv.MaxInFlight() > 2 {
		t.Errorf("%d requests in flight with concurrency 2", srv.MaxInFlight())
	}
	if srv.MaxInFlight() < 2 {
		t.Errorf("problems did not run concurrently (max in flight %d)", srv.MaxInFlight())
	}
}

func TestDryRunEstimateMatchesACleanRun(t *testing.T) {
	m := tomapfake.NewModel()
	// Judges that never reach the gate: every round runs, as the estimate assumes.
	m.Override = func(c tomapfake.Call) (string, bool) {
		if c.Role == tomap.RoleJudge {
			return tomapfake.RubricJSON(tomap.Vector{0.5, 0.5, 0.5}), true
		}
		return "", false
	}
	srv := newServer(t, m, fakeopenai.Options{})
	vs, _ := tomap.ParseVariants("tomap,proofflow,end2end", "3")
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, vs...)
	ps := testProblems(3)
	// The fake makes one unit per sentence: tell the estimate the truth.
	for i := range ps {
		ps[i].ReferenceUnits = len(tomapfake.Decompose(ps[i].Proof).Units)
	}
	est := tomap.EstimateRun(cfg, ps)
	sum := run(t, cfg, ps)
	for _, e := range est {
		v := variant(sum, e.Variant)
		calls := int(*v.ModelCalls.Value*float64(v.Finished) + 0.5)
		leans := int(*v.LeanCalls.Value*float64(v.Finished) + 0.5)
		if calls != e.Calls || leans != e.LeanChecks {
			t.Errorf("%s: estimated %d calls %d checks, ran %d calls %d checks", e.Variant, e.Calls, e.LeanChecks, calls, leans)
		}
		if e.MaxCalls <= e.Calls || e.MaxPromptTokens <= e.PromptTokens {
			t.Errorf("%s: max %+v", e.Variant, e)
		}
	}
	var b strings.Builder
	tomap.WriteEstimates(&b, est)
	if !strings.Contains(b.String(), "tomap-r3") || !strings.Contains(b.String(), "nothing was requested") {
		t.Errorf("%s", b.String())
	}
}

// TestFingerprintKeepsZeroRetries: a run with no retries (stored as a
// negative count, "none") has its own fingerprint, also after the config
// went through WithDefaults (Run defaults it, then fingerprints it: the
// second pass used to turn the 0 back into 3 and reuse a 3-retry run's
// outcomes).
func TestFingerprintKeepsZeroRetries(t *testing.T) {
	none := tomap.Config{DecomposeRetries: -1, FormalizerRetries: -1, ProverRetries: -1, E2ERetries: -1}
	three := tomap.Config{DecomposeRetries: 3, FormalizerRetries: 3, ProverRetries: 3, E2ERetries: 3}
	if none.WithDefaults().Fingerprint() != none.Fingerprint() {
		t.Error("defaulting twice changes the fingerprint")
	}
	if none.WithDefaults().Fingerprint() == three.Fingerprint() {
		t.Error("a run without retries has the fingerprint of a 3-retry run")
	}
	if d := none.WithDefaults().WithDefaults(); d.DecomposeRetries != 0 || d.E2ERetries != 0 {
		t.Errorf("retries after defaulting twice: %d, %d; want 0", d.DecomposeRetries, d.E2ERetries)
	}
}

// TestNoLeanEstimateAndSF: a dry run without a Lean backend counts no Lean
// checks; a run in which nothing got an SF verdict shows SF as n/a, not
// 0.000 (0/n).
func TestNoLeanEstimateAndSF(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	vs, _ := tomap.ParseVariants("tomap,end2end", "1")
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), nil, vs...)
	for _, e := range tomap.EstimateRun(cfg, testProblems(2)) {
		if e.LeanChecks != 0 || e.MaxLeanChecks != 0 || e.Calls == 0 {
			t.Errorf("%s without Lean: %d (≤%d) Lean checks, %d calls", e.Variant, e.LeanChecks, e.MaxLeanChecks, e.Calls)
		}
	}
	outcomes := []*tomap.Outcome{
		{Variant: "tomap-r1", Status: "done", SF: ptrBool(false), SFReason: "nothing formalized to judge"},
		{Variant: "tomap-r1", Status: "done", SF: ptrBool(false), SFFailed: true},
	}
	sum := tomap.Summarize(cfg, 2, outcomes)
	v := variant(sum, "tomap-r1")
	if v.SF.Value != nil || v.SFJudged != 0 || v.SF.Total != 2 {
		t.Errorf("SF %+v judged %d: want n/a over 2 unjudged", v.SF, v.SFJudged)
	}
	if md := sum.Markdown(); !strings.Contains(md, "SF n/a") || strings.Contains(md, "0.000 (0/2)") {
		t.Errorf("markdown:\n%s", md)
	}
}

func ptrBool(b bool) *bool { return &b }

func TestGateThresholds(t *testing.T) {
	// The fake judge's minimum score at revision r is (5+r)/10.
	for _, tc := range []struct {
		gate   float64
		rounds int
		by     string
	}{
		{1.0, 5, "gate"},
		{0.8, 3, "gate"},
		{0.5, 0, "gate"},
		{0, 0, "gate"},
	} {
		t.Run(fmt.Sprint(tc.gate), func(t *testing.T) {
			m := tomapfake.NewModel()
			srv := newServer(t, m, fakeopenai.Options{})
			cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{})
			cfg.Gate = &tc.gate
			run(t, cfg, testProblems(1))
			o := readOutcomes(t, cfg.Out)["test/0 tomap-r10"]
			if o.RoundsUsed != tc.rounds || o.CommittedBy != tc.by || o.Committed.Min() < tc.gate {
				t.Errorf("gate %v: %d rounds, committed by %s with %v", tc.gate, o.RoundsUsed, o.CommittedBy, *o.Committed)
			}
		})
	}
}

func TestPoolCapacityBoundsTheSearch(t *testing.T) {
	// Revisions trade one dimension for another, so none dominates: the pool
	// fills up to K and then evicts by the tie rule.
	m := tomapfake.NewModel()
	m.Override = func(c tomapfake.Call) (string, bool) {
		if c.Role != tomap.RoleJudge {
			return "", false
		}
		d, err := tomap.ParseDecomposition(strings.TrimSpace(strings.SplitN(strings.SplitN(c.User, "Decomposition:\n", 2)[1], "\n\nScore this", 2)[0]))
		if err != nil {
			return "", false
		}
		r := float64(tomapfake.Rev(d))
		return tomapfake.RubricJSON(tomap.Vector{0.9 - r/20, 0.5 + r/20, 0.6}), true
	}
	srv := newServer(t, m, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodToMap, Rounds: 6})
	cfg.Pool = 3
	run(t, cfg, testProblems(1))
	o := readOutcomes(t, cfg.Out)["test/0 tomap-r6"]
	for i, r := range o.Evolution.Rounds {
		if len(r.Pool) > 3 {
			t.Errorf("round %d: pool %v exceeds K=3", i+1, r.Pool)
		}
	}
	last := o.Evolution.Rounds[len(o.Evolution.Rounds)-1]
	if len(last.Pool) != 3 || o.CommittedBy != "rounds" || o.RoundsUsed != 6 {
		t.Errorf("final pool %v, committed by %s after %d rounds", last.Pool, o.CommittedBy, o.RoundsUsed)
	}
	// All sums tie (1.5+0.6), so the newest candidates stay and the parent
	// is always the newest: each round revises the previous revision.
	for i, r := range o.Evolution.Rounds {
		if r.Parent != i || r.Outcome != "admitted" {
			t.Errorf("round %+v", r)
		}
		if i >= 2 && (len(r.Evicted) != 1 || r.Evicted[0] != i-2) {
			t.Errorf("round %d evicted %v, want the oldest (%d)", i+1, r.Evicted, i-2)
		}
	}
	if o.Evolution.Committed != 6 {
		t.Errorf("committed %d, want the newest (6)", o.Evolution.Committed)
	}
}

func TestChangedSettingsRecompute(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	ag := newAgents(t, srv.BaseURL())
	cfg := newConfig(t, ag, &tomapfake.Checker{}, tomap.Variant{Method: tomap.MethodProofFlow}, tomap.Variant{Method: tomap.MethodToMap, Rounds: 2})
	ps := testProblems(2)
	first := run(t, cfg, ps)
	n := srv.Requests()
	gate := 0.7
	cfg.Gate = &gate
	second := run(t, cfg, ps)
	if first.Fingerprint == second.Fingerprint || second.Settings["gate"] != 0.7 {
		t.Fatalf("fingerprints %s %s, settings %v", first.Fingerprint, second.Fingerprint, second.Settings)
	}
	for k, o := range readOutcomes(t, cfg.Out) {
		if o.Fingerprint != second.Fingerprint {
			t.Errorf("%s kept the old settings' outcome", k)
		}
	}
	// Gate 0.7 is reached at revision 2, after the same requests as before.
	if o := readOutcomes(t, cfg.Out)["test/0 tomap-r2"]; o.CommittedBy != "gate" || srv.Requests() != n {
		t.Errorf("committed by %s; %d new requests", o.CommittedBy, srv.Requests()-n)
	}
	// A different Lean project does not reuse old verdicts.
	ck := &tomapfake.Checker{}
	cfg.Checker, cfg.LeanLabel = ck, "repl in another-mathlib"
	run(t, cfg, ps)
	if ck.Calls() == 0 || srv.Requests() != n {
		t.Errorf("new Lean project: %d checks, %d new requests", ck.Calls(), srv.Requests()-n)
	}
}

func TestLeanUnavailableStopsTheRun(t *testing.T) {
	m := tomapfake.NewModel()
	srv := newServer(t, m, fakeopenai.Options{})
	var mu sync.Mutex
	n := 0
	ck := &tomapfake.Checker{CallErr: func(s lean.Snippet) error {
		mu.Lock()
		defer mu.Unlock()
		if n++; n > 3 {
			return fmt.Errorf("repl worker 0: %w", lean.ErrUnavailable)
		}
		return nil
	}}
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), ck, tomap.Variant{Method: tomap.MethodProofFlow})
	cfg.Jobs = 1
	ps := testProblems(4)
	if _, err := tomap.Run(context.Background(), cfg, ps); !errors.Is(err, lean.ErrUnavailable) {
		t.Fatalf("run with a dead backend: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, tomap.SummaryJSON)); err == nil {
		t.Error("a stopped run wrote a summary")
	}
	// Only the problem in flight made calls: the run stopped at once.
	if files, _ := filepath.Glob(filepath.Join(cfg.Out, tomap.JournalDir, "*.jsonl")); len(files) > 2 {
		t.Errorf("%d problems started after the backend died", len(files))
	}
	before := srv.Stats()
	cfg.Checker = &tomapfake.Checker{}
	sum := run(t, cfg, ps)
	if v := variant(sum, "proofflow"); v.Finished != 4 || v.Errors != 0 {
		t.Fatalf("rerun %+v", v)
	}
	for k, st := range srv.Stats() {
		if b, ok := before[k]; ok && b.Requests != st.Requests {
			t.Errorf("request %s… asked again after the backend came back", k[:12])
		}
	}
}

// TestSorryIsNotAProof: an answer Lean accepts only as incomplete (a
// sorry it found, not one written: those are refused unparsed) is refused
// by the Prover's and the end-to-end baseline's conversations and answered
// with Lean's messages; the next answer proves it.
func TestSorryIsNotAProof(t *testing.T) {
	m := tomapfake.NewModel()
	m.Override = func(c tomapfake.Call) (string, bool) {
		switch {
		case c.Role == tomap.RoleProver && c.Attempt == 1:
			return `{"proof": "incomplete_tactic"}`, true
		case c.Role == tomap.RoleEnd2End && c.Attempt == 1:
			return `{"lean": "theorem main_theorem (n : ℕ) (h : 0 < n) : 0 < n := by\n  incomplete_tactic"}`, true
		}
		return "", false
	}
	ck := &tomapfake.Checker{Hook: func(s lean.Snippet) (lean.Result, bool) {
		if !strings.Contains(s.Code, "incomplete_tactic") {
			return lean.Result{}, false
		}
		return lean.Result{Pass: true, Complete: false, Messages: []lean.Message{{Severity: "warning", Pos: lean.Pos{Line: 1},
			Data: "declaration uses 'sorry'"}}}, true
	}}
	srv := newServer(t, m, fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), ck, tomap.Variant{Method: tomap.MethodProofFlow}, tomap.Variant{Method: tomap.MethodEnd2End})
	run(t, cfg, testProblems(1))
	outs := readOutcomes(t, cfg.Out)
	for _, u := range outs["test/0 proofflow"].Execution.Units {
		if !u.Formalized || !u.Proved || u.Prove.Count != 2 || len(u.Prove.Rejected) != 1 || !strings.Contains(u.Prove.Rejected[0], "sorry") {
			t.Errorf("unit %s: %+v", u.ID, u)
		}
	}
	e := outs["test/0 end2end"]
	if e.End2End.Attempts.Count != 2 || e.RoundsUsed != 1 || !*e.SC || strings.Contains(e.End2End.Code, "incomplete_tactic") {
		t.Errorf("end2end: %+v, rounds %d, SC %v", e.End2End, e.RoundsUsed, *e.SC)
	}
}

// A problem journal's torn last line is reported while it is still in the
// file (journal.Options.BeforeCut): a run killed between the cut and a
// report made after it would lose the report for good.
func TestTornLineReportedBeforeTheCut(t *testing.T) {
	srv := newServer(t, tomapfake.NewModel(), fakeopenai.Options{})
	cfg := newConfig(t, newAgents(t, srv.BaseURL()), &tomapfake.Checker{})
	dir := filepath.Join(cfg.Out, tomap.JournalDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, tomap.FileName("test/0")+".jsonl")
	tail := `{"kind":"chat","key":"4567","content":"{\"units\": [`
	c := torntest.Tear(t, path, `{"kind":"chat","key":"0123","content":"{}"}`+"\n", tail)
	cfg.Log = c.Logger()
	run(t, cfg, testProblems(1))
	c.Verify(t, "line=2", fmt.Sprintf("bytes=%d", len(tail)))
}
