package drift

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

func premiseNames(ps []Premise) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestFormalizeWholePipeline(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	lean, beq := &fakeLean{}, &fakeBEq{}
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: lean, BEq: beq}, Options{Samples: 3})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "ok" {
		t.Fatalf("status %s: %s", rec.Status, rec.Error)
	}
	if len(rec.SubQueries) != 2 || rec.SubQueries[0].Formal != "Lib.Prime p" {
		t.Errorf("sub-queries %+v", rec.SubQueries)
	}
	if got := premiseNames(rec.Premises); !slices.Equal(got, []string{"Lib.Prime", "Lib.Dvd"}) {
		t.Errorf("premises %v", got)
	}
	for _, pr := range rec.Premises {
		if pr.Signature == "" || pr.Informal == "" || pr.Rank != 1 || len(pr.From) != 1 {
			t.Errorf("premise not described: %+v", pr)
		}
	}
	if got := names(rec.Illustrations); !slices.Equal(got, []string{"Lib.prime_dvd_mul"}) {
		t.Errorf("illustrations %v (the item's own theorem must never be one)", got)
	}
	if len(rec.Decompose) != 1 || len(rec.Decompose[0].PromptSHA256) != 64 {
		t.Errorf("decompose calls %+v", rec.Decompose)
	}
	if len(rec.Samples) != 3 {
		t.Fatalf("%d samples", len(rec.Samples))
	}
	for i, smp := range rec.Samples {
		if smp.Seed != 42+i || !smp.Typechecks || !smp.Equivalent() || len(smp.Attempts) != 1 {
			t.Errorf("sample %d: %+v", i, smp)
		}
		if !strings.HasSuffix(smp.Statement, ":= by sorry") || strings.Contains(smp.Statement, "exact foo") {
			t.Errorf("sample %d statement %q: proof not replaced by sorry", i, smp.Statement)
		}
	}
	if rec.Usage.Requests != 4 || rec.Usage.PromptTokens == 0 || rec.Usage.CostUSD <= 0 {
		t.Errorf("usage %+v", rec.Usage)
	}
	// The server saw the paper's sampling: temperature 0.7, seeds 42..44;
	// decomposition at temperature 0.
	var seeds []int
	for _, c := range s.convs("formalize", stmtPrime) {
		seeds = append(seeds, c.seed)
		if c.temp != 0.7 {
			t.Errorf("formalize temperature %v", c.temp)
		}
	}
	slices.Sort(seeds)
	if !slices.Equal(seeds, []int{42, 43, 44}) {
		t.Errorf("seeds %v", seeds)
	}
	if d := s.convs("decompose", stmtPrime); len(d) != 1 || d[0].temp > 1e-6 { // zero is sent as the smallest float
		t.Errorf("decompose requests %+v", d)
	}
	// The formalization prompt carries premises (name, signature,
	// informal) and the illustration, and never the item's own theorem.
	f := s.convs("formalize", stmtPrime)[0].last
	for _, want := range []string{"- Lib.Prime\n  def Lib.Prime (p : ℕ) : Prop\n  p is a prime number", "theorem Lib.prime_dvd_mul", "Informal: a prime divides a product iff it divides a factor", "import Lib", stmtPrime} {
		if !strings.Contains(f, want) {
			t.Errorf("formalize prompt lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "Lib.Bench.thm1") {
		t.Errorf("formalize prompt leaks the item's own theorem:\n%s", f)
	}
	if lean.calls.Load() != 3 || beq.calls.Load() != 3 {
		t.Errorf("lean %d, beq %d calls", lean.calls.Load(), beq.calls.Load())
	}
}

// The query's own declaration never enters the context, even through a
// backend that ignores Filter.Exclude and even in the oracle ablation.
func TestNoLeakage(t *testing.T) {
	s := newScript(t)
	s.decompose[stmtPrime] = []string{decompJSON("if a prime p divides a product ab then p divides a or b", "Lib.Bench.thm1")}
	srv := fakeServer(t, s, fakeopenai.Options{})
	c := testLibrary()
	for _, o := range []Options{{PerQuery: 5}, {NoDecompose: true}, {Oracle: true}} {
		// A backend that ignores the exclusion and ranks theorems too.
		leaky := &wordSearcher{c: c, ignoreExclude: true, allKinds: true}
		p := pipeline(t, Parts{Chat: client(t, srv, nil), Corpus: c, Search: leaky}, o)
		rec, err := p.Formalize(context.Background(), testItems()[0])
		if err != nil || rec.Status != "ok" {
			t.Fatalf("%s: %v %+v", o.Protocol(), err, rec)
		}
		for _, pr := range rec.Premises {
			if pr.Name == "Lib.Bench.thm1" {
				t.Errorf("%s: own theorem retrieved", o.Protocol())
			}
		}
		for _, il := range rec.Illustrations {
			if il.Name == "Lib.Bench.thm1" {
				t.Errorf("%s: own theorem illustrated", o.Protocol())
			}
		}
		for _, q := range leaky.seen {
			if !slices.Contains(q.Filter.Exclude, "Lib.Bench.thm1") {
				t.Errorf("%s: query without the exclusion: %+v", o.Protocol(), q)
			}
		}
	}
}

func TestDecomposeRepairAndFailure(t *testing.T) {
	s := newScript(t)
	s.decompose[stmtPrime] = []string{"Sure! The concepts are prime numbers and divisibility.", decompJSON("prime number", "Lib.Prime p")}
	s.decompose[stmtNormal] = []string{"I'm sorry, I can't help with that.", `{"sub_queries": []}`}
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil)}, Options{})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil || rec.Status != "ok" || len(rec.Decompose) != 2 || len(rec.SubQueries) != 1 {
		t.Fatalf("repaired decomposition: %v %+v", err, rec)
	}
	rp := s.convs("decompose", stmtPrime)[1].last
	if !strings.Contains(rp, "does not start with a JSON object") {
		t.Errorf("repair turn does not quote the reason: %q", rp)
	}
	rec, err = p.Formalize(context.Background(), testItems()[1])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "failed" || rec.Stage != StageDecompose || rec.Retryable ||
		!strings.Contains(rec.Error, "does not start with a JSON object") || !strings.Contains(rec.Error, "after one repair") || !strings.Contains(rec.Error, "no sub_queries") {
		t.Errorf("failed decomposition: %+v", rec)
	}
	if len(rec.Samples) != 0 || len(s.convs("formalize", stmtNormal)) != 0 {
		t.Error("formalized after a failed decomposition")
	}
}

func TestFormalizeAnswersWithoutStatement(t *testing.T) {
	s := newScript(t)
	s.formalize[stmtPrime] = func(c conv) string {
		switch c.seed {
		case 42:
			return "I'm sorry, but I cannot help with formalizing this."
		case 43:
			return "theorem thm1 : True := by sorry" // no fence
		}
		return "```lean\ndef notATheorem : ℕ := 3\n```"
	}
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: &fakeLean{}}, Options{Samples: 3})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil || rec.Status != "ok" {
		t.Fatalf("%v %+v", err, rec)
	}
	for i, want := range []string{ErrNoLeanBlock.Error(), ErrNoLeanBlock.Error(), ErrNoTheorem.Error()} {
		smp := rec.Samples[i]
		if smp.Typechecks || smp.Statement != "" || smp.Attempts[0].ExtractError != want || smp.Attempts[0].Typecheck != nil {
			t.Errorf("sample %d: %+v", i, smp)
		}
	}
}

func TestRepairRoundsFeedLeanErrors(t *testing.T) {
	s := newScript(t)
	s.formalize[stmtPrime] = func(c conv) string {
		switch c.round {
		case 0:
			return leanAnswer("theorem thm1 (p : ℕ) (hp : BAD p) : True := by sorry")
		case 1:
			return "no fence this time"
		}
		return leanAnswer(refPrime)
	}
	srv := fakeServer(t, s, fakeopenai.Options{})
	lean := &fakeLean{}
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: lean, BEq: &fakeBEq{}}, Options{Repair: 2})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil || rec.Status != "ok" {
		t.Fatalf("%v %+v", err, rec)
	}
	smp := rec.Samples[0]
	if len(smp.Attempts) != 3 || !smp.Typechecks || !smp.Equivalent() {
		t.Fatalf("sample %+v", smp)
	}
	if a := smp.Attempts[0]; a.Typecheck == nil || a.Typecheck.Pass || a.Call.Stage != "formalize" {
		t.Errorf("first attempt %+v", a)
	}
	if a := smp.Attempts[1]; a.ExtractError == "" || a.Call.Stage != "formalize-repair" {
		t.Errorf("second attempt %+v", a)
	}
	convs := s.convs("formalize", stmtPrime)
	if len(convs) != 3 {
		t.Fatalf("%d formalize requests", len(convs))
	}
	if r := convs[1].last; !strings.Contains(r, "unknown identifier 'BAD'") || !strings.Contains(r, "line 1, column 20") || !strings.Contains(r, "hp : BAD p") {
		t.Errorf("first repair prompt lacks Lean's error and the statement:\n%s", r)
	}
	if r := convs[2].last; !strings.Contains(r, ErrNoLeanBlock.Error()) {
		t.Errorf("second repair prompt lacks the extraction failure:\n%s", r)
	}
	// Without repairs the same script stops at the failing statement.
	p0 := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: lean}, Options{})
	rec, _ = p0.Formalize(context.Background(), testItems()[0])
	if smp := rec.Samples[0]; len(smp.Attempts) != 1 || smp.Typechecks {
		t.Errorf("no-repair sample %+v", smp)
	}
}

func TestVerificationSkippedWithoutLean(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil), BEq: &fakeBEq{}}, Options{Samples: 2})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil || rec.Status != "ok" {
		t.Fatal(err, rec)
	}
	if !strings.HasPrefix(rec.Verification, "skipped") {
		t.Errorf("verification %q", rec.Verification)
	}
	for _, smp := range rec.Samples {
		if smp.Typechecks || smp.BEq != nil || smp.Attempts[0].Typecheck != nil || smp.Statement == "" {
			t.Errorf("unverified sample claims something: %+v", smp)
		}
	}
	sum := Summarize([]*Record{rec}, 1, p, RunOptions{})
	if sum.TC1 != nil || sum.TCn != nil || sum.BEq1 != nil || !strings.HasPrefix(sum.Verification, "skipped") {
		t.Errorf("summary claims verification: %+v", sum)
	}
}

func TestLeanCrashFailsItemRetryably(t *testing.T) {
	s := newScript(t)
	s.formalize[stmtPrime] = func(conv) string { return leanAnswer("theorem x : CRASH := by sorry") }
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: &fakeLean{}}, Options{})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "failed" || rec.Stage != StageVerify || !rec.Retryable || !strings.Contains(rec.Error, "worker crashed") {
		t.Errorf("record %+v", rec)
	}
	if len(rec.Samples) != 1 || rec.Samples[0].Attempts[0].Typecheck == nil {
		t.Errorf("the crashed check is not recorded: %+v", rec.Samples)
	}
}

func TestEndpointFaults(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{SlowDelay: 2 * time.Second, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		switch {
		case strings.HasPrefix(r.Key, "decompose:"+stmtPrime) && r.Attempt == 1:
			return fakeopenai.RateLimit
		case strings.HasPrefix(r.Key, "formalize:"+stmtPrime) && r.Attempt <= 2:
			return fakeopenai.Slow
		case strings.HasPrefix(r.Key, "decompose:"+stmtNormal):
			return fakeopenai.ServerError
		}
		return fakeopenai.OK
	}})
	c := client(t, srv, func(cfg *llm.Config) { cfg.RequestTimeout = 300 * time.Millisecond; cfg.MaxRetries = 2 })
	p := pipeline(t, Parts{Chat: c, Lean: &fakeLean{}}, Options{})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil || rec.Status != "ok" || !rec.Samples[0].Typechecks {
		t.Fatalf("429 then slow answers should be retried through: %v %+v", err, rec)
	}
	if rec.Usage.Retries < 3 {
		t.Errorf("retries %d, want ≥ 3 (one 429, two timeouts)", rec.Usage.Retries)
	}
	rec, err = p.Formalize(context.Background(), testItems()[1])
	if err != nil {
		t.Fatal(err)
	}
	var le *llm.Error
	if rec.Status != "failed" || rec.Stage != StageDecompose || !rec.Retryable || !errors.As(rec.err, &le) || le.Status != 500 {
		t.Errorf("500s until retries run out: %+v", rec)
	}
}

func TestAblations(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	item := testItems()[1]
	for _, c := range []struct {
		o             Options
		subQueries    int
		premises      []string
		illustrations int
		decompose     bool
		libraryInText bool
	}{
		{o: Options{}, subQueries: 3, premises: []string{"Lib.Subgroup", "Lib.index", "Lib.Normal"}, illustrations: 1, decompose: true, libraryInText: true},
		{o: Options{PerQuery: 2}, subQueries: 3, illustrations: 1, decompose: true, libraryInText: true},
		{o: Options{NoDecompose: true}, subQueries: 1, illustrations: -1, libraryInText: true},
		{o: Options{NoDecompose: true, TopK: 2}, subQueries: 1, illustrations: -1, libraryInText: true},
		{o: Options{NoIllustrate: true}, subQueries: 3, premises: []string{"Lib.Subgroup", "Lib.index", "Lib.Normal"}, decompose: true, libraryInText: true},
		{o: Options{Oracle: true}, premises: []string{"Lib.Group", "Lib.Subgroup", "Lib.index", "Lib.Normal"}, illustrations: 1, libraryInText: true},
		{o: Options{NoRetrieval: true}, premises: []string{}},
	} {
		name := c.o
		_ = name.defaults()
		t.Run(name.Protocol(), func(t *testing.T) {
			before := len(s.convs("decompose", stmtNormal))
			p := pipeline(t, Parts{Chat: client(t, srv, nil)}, c.o)
			rec, err := p.Formalize(context.Background(), item)
			if err != nil || rec.Status != "ok" {
				t.Fatalf("%v %+v", err, rec)
			}
			if got := len(s.convs("decompose", stmtNormal)) - before; (got == 1) != c.decompose || got > 1 {
				t.Errorf("%d decompose requests", got)
			}
			if len(rec.SubQueries) != c.subQueries {
				t.Errorf("%d sub-queries", len(rec.SubQueries))
			}
			if c.o.NoDecompose && rec.SubQueries[0].Informal != stmtNormal {
				t.Errorf("no-decompose query %q", rec.SubQueries[0].Informal)
			}
			want := p.Options().TopK
			if c.o.NoDecompose && len(rec.Premises) != want {
				t.Errorf("%d premises, want top-%d", len(rec.Premises), want)
			}
			if c.o.PerQuery == 2 && len(rec.Premises) <= 3 {
				t.Errorf("per-query 2 gave %d premises", len(rec.Premises))
			}
			if c.premises != nil && !slices.Equal(premiseNames(rec.Premises), c.premises) {
				t.Errorf("premises %v, want %v", premiseNames(rec.Premises), c.premises)
			}
			if c.illustrations >= 0 && len(rec.Illustrations) != c.illustrations {
				t.Errorf("%d illustrations: %v", len(rec.Illustrations), names(rec.Illustrations))
			}
			convs := s.convs("formalize", stmtNormal)
			last := convs[len(convs)-1].last
			if strings.Contains(last, "Library declarations") != c.libraryInText {
				t.Errorf("prompt library section present=%v:\n%s", !c.libraryInText, last)
			}
			if !strings.HasPrefix(rec.Protocol, strings.Fields(c.o.Protocol())[0]) {
				t.Errorf("protocol %q", rec.Protocol)
			}
		})
	}
	if _, err := New(Parts{Chat: client(t, srv, nil), Corpus: testLibrary()}, Options{Oracle: true, NoDecompose: true}); err == nil {
		t.Error("contradictory ablations accepted")
	}
}

// Options.Exclude (--exclude-bench) holds names out of every item's
// retrieval and illustration.
func TestExcludeHoldsOut(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil)}, Options{Exclude: []string{"Lib.prime_dvd_mul", "Lib.Dvd"}})
	rec, err := p.Formalize(context.Background(), testItems()[0])
	if err != nil || rec.Status != "ok" {
		t.Fatal(err, rec)
	}
	for _, pr := range rec.Premises {
		if pr.Name == "Lib.Dvd" {
			t.Error("held-out premise retrieved")
		}
	}
	if got := names(rec.Illustrations); slices.Contains(got, "Lib.prime_dvd_mul") || slices.Contains(got, "Lib.Bench.thm1") {
		t.Errorf("illustrations %v", got)
	}
}
