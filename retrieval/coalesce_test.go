package retrieval

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"sync"
	"testing"
)

const coalesceCorpus = `class Group
structure Subgroup uses Group
instance instGroup uses Group
definition IsOpen
definition Set.Nonempty
definition Set.Nonempty.cloud uses Set.Nonempty
definition Prime
definition Nat.Prime
theorem group_mul uses Group
theorem subgroup_mul uses Subgroup Group
theorem open_union uses IsOpen
theorem prime_two uses Nat.Prime
theorem prime_three uses Nat.Prime`

// passes is letters as a MultiDenseBackend that records its passes (the
// queries of each) and can hold the first one until gate is closed.
type passes struct {
	letters
	mu      sync.Mutex
	sizes   []int
	entered chan struct{} // receives once the first pass runs
	gate    chan struct{}
	fail    error
}

func (p *passes) SearchDense(ctx context.Context, q []float32, b *Batch) ([][]Scored, error) {
	res, err := p.SearchDenseMany(ctx, [][]float32{q}, []*Batch{b})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

func (p *passes) SearchDenseMany(ctx context.Context, qs [][]float32, bs []*Batch) ([][][]Scored, error) {
	p.mu.Lock()
	p.sizes = append(p.sizes, len(qs))
	first := len(p.sizes) == 1
	p.mu.Unlock()
	if first && p.gate != nil {
		p.entered <- struct{}{}
		<-p.gate
	}
	if p.fail != nil {
		return nil, p.fail
	}
	out := make([][][]Scored, len(qs))
	for i, q := range qs {
		out[i], _ = p.letters.SearchDense(ctx, q, bs[i])
	}
	return out, nil
}

// queued is how many dense requests wait for the next pass.
func (e *Engine) queued() int {
	e.co.mu.Lock()
	defer e.co.mu.Unlock()
	return len(e.co.queue)
}

// TestConcurrentSearchesShareDensePasses: searches arriving while a pass
// runs share the next one, and each gets exactly the hits it gets alone.
func TestConcurrentSearchesShareDensePasses(t *testing.T) {
	tb := corpusFrom(t, coalesceCorpus)
	p := &passes{letters: letters{tb}, entered: make(chan struct{}, 1), gate: make(chan struct{})}
	e := &Engine{Table: tb, Lexical: nameMatch{tb}, Dense: p, Encoder: letters{tb}}
	alone := &Engine{Table: tb, Lexical: nameMatch{tb}, Dense: letters{tb}, Encoder: letters{tb}}
	qs := []Query{{Text: "prime numbers"}, {Text: "open sets", Mode: ModeDense}, {Text: "subgroup of a group", K: 3},
		{Text: "Nat.Prime two", Mode: ModeHybrid}, {Text: "nonempty cloud", Filter: Filter{AllKinds: true}}, {Text: "group", Mode: ModeDense, K: 2}}
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		var err error
		if want[i], err = alone.Search(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][]Hit, len(qs))
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	wg.Go(func() { got[0], errs[0] = e.Search(context.Background(), qs[0]) })
	<-p.entered // the first pass runs (and waits); the others queue
	for i := 1; i < len(qs); i++ {
		wg.Go(func() { got[i], errs[i] = e.Search(context.Background(), qs[i]) })
	}
	for e.queued() < len(qs)-1 {
		runtime.Gosched() // until every other search has queued its dense request
	}
	close(p.gate)
	wg.Wait()
	for i := range qs {
		if errs[i] != nil {
			t.Fatalf("query %d: %v", i, errs[i])
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("query %d %q: coalesced hits differ:\n got  %v\n want %v", i, qs[i].Text, got[i], want[i])
		}
	}
	if !reflect.DeepEqual(p.sizes, []int{1, len(qs) - 1}) {
		t.Errorf("passes of %v queries, want [1 %d]", p.sizes, len(qs)-1)
	}
}

// TestCoalescedPassFailsEveryWaiter: a failing pass fails each search it
// answers; a search whose context ends stops waiting.
func TestCoalescedPassFailsEveryWaiter(t *testing.T) {
	tb := corpusFrom(t, coalesceCorpus)
	boom := errors.New("boom")
	p := &passes{letters: letters{tb}, fail: boom}
	e := &Engine{Table: tb, Lexical: nameMatch{tb}, Dense: p, Encoder: letters{tb}}
	if _, err := e.Search(context.Background(), Query{Text: "prime"}); !errors.Is(err, boom) {
		t.Errorf("a failing pass: %v, want boom", err)
	}
	p2 := &passes{letters: letters{tb}, entered: make(chan struct{}, 1), gate: make(chan struct{})}
	e2 := &Engine{Table: tb, Lexical: nameMatch{tb}, Dense: p2, Encoder: letters{tb}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := e2.Search(ctx, Query{Text: "prime"})
		done <- err
	}()
	<-p2.entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled search: %v, want context.Canceled", err)
	}
	close(p2.gate)
}
