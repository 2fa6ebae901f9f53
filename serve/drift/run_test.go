package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/torntest"
	"github.com/driftkit/driftkit/lean"
)

// manyItems makes n items alternating the two scripted statements under
// distinct keys (the script answers by statement).
func manyItems(n int) []Item {
	base := testItems()
	out := make([]Item, n)
	for i := range out {
		it := base[i%2]
		it.Key = fmt.Sprintf("%s.%03d", it.Key, i)
		it.Line = i + 1
		out[i] = it
	}
	return out
}

func readRecords(t testing.TB, path string) []Record {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r Record
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}

func TestRunSummary(t *testing.T) {
	s := newScript(t)
	// thm2's samples: seed 42 typechecks but is not equivalent, seed 43 is.
	s.formalize[stmtNormal] = func(c conv) string {
		if c.seed == 42 {
			return leanAnswer("theorem thm2 {G : Type*} [Lib.Group G] (H : Lib.Subgroup G) : Lib.Normal H := sorry")
		}
		return leanAnswer(refNormal)
	}
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: &fakeLean{}, BEq: &fakeBEq{}}, Options{Samples: 2})
	dir := t.TempDir()
	var out bytes.Buffer
	sum, err := Run(context.Background(), p, testItems(), RunOptions{Dir: dir, Bench: "test", Out: &out, Settings: map[string]any{"model": "fake"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Items != 2 || sum.OK != 2 || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	// Retrieval: thm1 gets {Prime, Dvd} of gold {Prime, Dvd} (own name
	// dropped): P=R=1. thm2 gets {Subgroup, index, Normal} of 4 gold: P=1,
	// R=3/4, F1=6/7.
	r := sum.Retrieval
	if r == nil || r.Items != 2 || math.Abs(r.P-1) > 1e-9 || math.Abs(r.R-0.875) > 1e-9 || math.Abs(r.F1-(1+6.0/7)/2) > 1e-9 || r.MeanK != 2.5 {
		t.Errorf("retrieval %+v", r)
	}
	if r.GoldTotal != 6 || r.GoldInCorpus != 6 {
		t.Errorf("gold %d in corpus %d", r.GoldTotal, r.GoldInCorpus)
	}
	one, half := 1.0, 0.5
	for name, c := range map[string][2]*float64{"TC@1": {sum.TC1, &one}, "TC@n": {sum.TCn, &one}, "BEq+@1": {sum.BEq1, &half}, "BEq+@n": {sum.BEqn, &one}} {
		if c[0] == nil || *c[0] != *c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], *c[1])
		}
	}
	if sum.MeanSubQueries != 2.5 || sum.BEqItems != 2 || sum.PromptTokensPerItem == 0 || sum.CostPerItemUSD <= 0 {
		t.Errorf("summary %+v", sum)
	}
	recs := readRecords(t, filepath.Join(dir, RecordsFile))
	items := readRecords(t, filepath.Join(dir, ItemsFile))
	if len(recs) != 2 || len(items) != 2 || items[0].Key != "Lib.Bench.thm1" || items[1].Key != "Lib.Bench.thm2" {
		t.Errorf("records %d, items %d", len(recs), len(items))
	}
	var disk Summary
	b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err := json.Unmarshal(b, &disk); err != nil || disk.Items != 2 || disk.Settings["model"] != "fake" {
		t.Errorf("summary.json: %v %+v", err, disk)
	}
	var txt bytes.Buffer
	sum.WriteText(&txt)
	for _, want := range []string{"TC@1 100.00", "BEq+@1 50.00", "BEq+@2 100.00", "F1 92.86"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text summary lacks %q:\n%s", want, txt.String())
		}
	}
}

// TestSummaryCountsExtractedStatements: an item whose formalizer never
// wrote a Lean block is "ok" (its pipeline ran) but not extracted, and the
// summary says so; with one sample the @n columns are n/a, not a repeat of @1.
func TestSummaryCountsExtractedStatements(t *testing.T) {
	s := newScript(t)
	s.formalize[stmtNormal] = func(conv) string { return "I cannot formalize this statement." }
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: &fakeLean{}, BEq: &fakeBEq{}}, Options{Samples: 1})
	var out bytes.Buffer
	sum, err := Run(context.Background(), p, testItems(), RunOptions{Dir: t.TempDir(), Bench: "test", Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 2 || sum.Extracted != 1 || sum.Statements != 1 {
		t.Errorf("ok %d, extracted %d, statements %d; want 2, 1, 1", sum.OK, sum.Extracted, sum.Statements)
	}
	if sum.TC1 == nil || sum.TCn != nil || sum.BEqn != nil {
		t.Errorf("TC@1 %v, TC@n %v, BEq+@n %v: want @1 only", sum.TC1, sum.TCn, sum.BEqn)
	}
	var txt bytes.Buffer
	sum.WriteText(&txt)
	for _, want := range []string{"a Lean statement extracted for 1 of 2 finished items", "TC@1 50.00", "one sample: @n is n/a"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text summary lacks %q:\n%s", want, txt.String())
		}
	}
	if strings.Contains(txt.String(), "TC@1 50.00  TC@1") {
		t.Errorf("@n repeats @1:\n%s", txt.String())
	}
}

// A rerun never requests a finished item again and says what it skipped;
// transient failures are redone, content failures only when asked.
func TestRunResume(t *testing.T) {
	s := newScript(t)
	var failFormalize atomic.Bool
	failFormalize.Store(true)
	const bad = "Statement whose decomposition is never usable."
	s.decompose[bad] = []string{"garbage", "more garbage"}
	srv := fakeServer(t, s, fakeopenai.Options{Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if failFormalize.Load() && strings.HasPrefix(r.Key, "formalize:"+stmtNormal) {
			return fakeopenai.ServerError
		}
		return fakeopenai.OK
	}})
	p := pipeline(t, Parts{Chat: client(t, srv, nil)}, Options{})
	items := append(manyItems(6), Item{Key: "bad", Line: 7, Informal: bad})
	dir := t.TempDir()
	run := func(o RunOptions) (*Summary, string) {
		var out bytes.Buffer
		o.Dir, o.Out = dir, &out
		sum, err := Run(context.Background(), p, items, o)
		if err != nil {
			t.Fatal(err)
		}
		return sum, out.String()
	}
	sum, _ := run(RunOptions{})
	if sum.OK != 3 || sum.Failed != 4 {
		t.Fatalf("first run: %d ok, %d failed", sum.OK, sum.Failed)
	}
	before := srv.Stats()
	failFormalize.Store(false)
	sum, out := run(RunOptions{})
	if !strings.Contains(out, "resume: 4 of 7 items already finished, skipped (3 ok, 1 failed for good); 3 failed items redone") {
		t.Errorf("resume message:\n%s", out)
	}
	if sum.OK != 6 || sum.Failed != 1 || sum.Run.Ran != 3 || sum.Run.SkippedOK != 3 {
		t.Errorf("second run summary %+v", sum.Run)
	}
	after := srv.Stats()
	if after["decompose:"+stmtPrime].Requests != before["decompose:"+stmtPrime].Requests ||
		after["formalize:"+stmtPrime].Requests != before["formalize:"+stmtPrime].Requests {
		t.Errorf("finished items requested again: %+v → %+v", before, after)
	}
	if after["decompose:"+bad].Requests != before["decompose:"+bad].Requests {
		t.Error("the content failure was retried without RetryFailed")
	}
	// Third run: nothing to do.
	sum, out = run(RunOptions{})
	if sum.Run.Ran != 0 || !strings.Contains(out, "7 of 7 items already finished") {
		t.Errorf("third run: %+v\n%s", sum.Run, out)
	}
	// RetryFailed redoes the content failure.
	sum, _ = run(RunOptions{RetryFailed: true})
	if sum.Run.Ran != 1 || srv.Stats()["decompose:"+bad].Requests != after["decompose:"+bad].Requests+2 {
		t.Errorf("retry-failed run: %+v", sum.Run)
	}
	if n := len(readRecords(t, filepath.Join(dir, ItemsFile))); n != 7 {
		t.Errorf("items.jsonl has %d records", n)
	}
}

func TestRunRefusesOtherSettings(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	p := pipeline(t, Parts{Chat: client(t, srv, nil)}, Options{})
	dir := t.TempDir()
	if _, err := Run(context.Background(), p, testItems(), RunOptions{Dir: dir, Settings: map[string]any{"model": "a", "samples": 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), p, testItems(), RunOptions{Dir: dir, Settings: map[string]any{"model": "b", "samples": 1}})
	if !errors.Is(err, ErrSettingsChanged) || !strings.Contains(err.Error(), `model: "a", now "b"`) {
		t.Errorf("error %v", err)
	}
}

func TestRunStopsOnFatalEndpointError(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	// A wrong API path answers 404 for every item alike.
	p, err := New(Parts{Chat: pathChatter{srv.URL + "/nope/v1"}, Corpus: testLibrary(), Search: &wordSearcher{c: testLibrary()}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), p, manyItems(20), RunOptions{Dir: t.TempDir(), Jobs: 2})
	if err == nil || !strings.Contains(err.Error(), "every item would fail alike") || !strings.Contains(err.Error(), "404") {
		t.Errorf("error %v", err)
	}
}

// Cancelling the context stops the run and keeps only finished records.
func TestRunCancel(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{Latency: 20 * time.Millisecond})
	p := pipeline(t, Parts{Chat: client(t, srv, nil)}, Options{})
	dir := t.TempDir()
	// Cancel once the first record is on disk (a fixed deadline left a
	// loaded machine with none written yet).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(filepath.Join(dir, RecordsFile)); bytes.IndexByte(b, '\n') >= 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := Run(ctx, p, manyItems(200), RunOptions{Dir: dir, Jobs: 4})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	recs := readRecords(t, filepath.Join(dir, RecordsFile))
	if len(recs) == 0 || len(recs) == 200 {
		t.Fatalf("%d records after cancel", len(recs))
	}
	for _, r := range recs {
		if r.Status != "ok" {
			t.Errorf("a cancelled item was recorded: %+v", r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
		t.Error("summary written for an unfinished run")
	}
}

// unavailableLean is a backend that stopped working.
type unavailableLean struct{ fakeLean }

func (u *unavailableLean) Check(ctx context.Context, sn []lean.Snippet) ([]lean.Result, error) {
	u.calls.Add(1)
	return nil, fmt.Errorf("kimina at http://x: %w", lean.ErrUnavailable)
}

func TestRunStopsWhenLeanIsUnavailable(t *testing.T) {
	s := newScript(t)
	srv := fakeServer(t, s, fakeopenai.Options{})
	ul := &unavailableLean{}
	p := pipeline(t, Parts{Chat: client(t, srv, nil), Lean: ul}, Options{})
	dir := t.TempDir()
	_, err := Run(context.Background(), p, manyItems(40), RunOptions{Dir: dir, Jobs: 2})
	if !errors.Is(err, lean.ErrUnavailable) {
		t.Fatalf("error %v, want one wrapping lean.ErrUnavailable", err)
	}
	if n := ul.calls.Load(); n > 4 {
		t.Errorf("%d checks after the backend stopped working; the run should stop at once", n)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, RecordsFile)); len(b) != 0 {
		t.Errorf("items recorded as failed by a dead backend:\n%s", b)
	}
}

func TestRunNeedsChat(t *testing.T) {
	p := pipeline(t, Parts{}, Options{})
	if _, err := Run(context.Background(), p, testItems(), RunOptions{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "chat client") {
		t.Errorf("error %v", err)
	}
}

// The torn last line of the records journal is reported while it is still
// in the file (journal.Options.BeforeCut): a run killed between the cut and
// a report made after it would lose the report for good.
func TestRunReportsTornLineBeforeTheCut(t *testing.T) {
	s := newScript(t)
	p := pipeline(t, Parts{Chat: client(t, fakeServer(t, s, fakeopenai.Options{}), nil)}, Options{})
	dir := t.TempDir()
	path := filepath.Join(dir, RecordsFile)
	c := torntest.Tear(t, path, `{"key":"elsewhere","status":"failed"}`+"\n", `{"key":"Lib.Prime.000","status":"ok","pro`)
	var out bytes.Buffer
	if _, err := Run(context.Background(), p, manyItems(2), RunOptions{Dir: dir, Out: c.Writer(&out)}); err != nil {
		t.Fatal(err)
	}
	c.Verify(t, path+":2:", "that item will be redone")
}
