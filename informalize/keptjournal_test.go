package informalize

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// scripted is the template provider under another name, its statements
// marked with label; it fails on the declaration fail and cancels the run
// after cancelAfter answers.
type scripted struct {
	Template
	label, fail string
	n           atomic.Int32
	cancelAfter int32
	cancel      func()
}

func (s *scripted) Name() string { return "test:" + s.label }

func (s *scripted) Informalize(ctx context.Context, in *Input) (Result, error) {
	if in.Name == s.fail {
		return Result{}, &FailedError{Name: in.Name, Reason: "refused by the test"}
	}
	r, err := s.Template.Informalize(ctx, in)
	r.InformalStatement = s.label + ": " + r.InformalStatement
	if s.cancel != nil && s.n.Add(1) == s.cancelAfter {
		s.cancel()
	}
	return r, err
}

// TestFailedAnswerKeepsJournalAnswer: a declaration that has no row yet
// but an ok answer in the journal of an interrupted run (paid for), whose
// inputs then change and whose new answer fails, keeps that earlier answer
// (Kept "earlier answer"), not the template's text: a failed answer never
// deletes what was there.
func TestFailedAnswerKeepsJournalAnswer(t *testing.T) {
	ws, ds := openWS(t, 12)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, ws, quietOpts(&scripted{label: "v1", cancelAfter: int32(len(ds)), cancel: cancel})); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if ws.Has(workspace.InformalFile) {
		t.Fatal("the interrupted run wrote informal.parquet")
	}
	// A declaration the journal holds an ok answer for.
	f, err := os.Open(filepath.Join(ws.Dir, workspace.InformalJournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var x string
	for sc := bufio.NewScanner(f); sc.Scan() && x == ""; {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Status == StatusOK && strings.HasPrefix(e.InformalStatement, "v1: ") {
			x = e.Name
		}
	}
	f.Close()
	if x == "" {
		t.Fatal("no ok answer in the interrupted run's journal")
	}
	v2 := slices.Clone(ds)
	i := slices.IndexFunc(v2, func(d workspace.Declaration) bool { return d.Name == x })
	v2[i].Signature = "(y : ℤ) : y = y" // its inputs change: it is asked again
	writeFixture(t, ws.Dir, v2)
	rep, err := Run(context.Background(), ws, quietOpts(&scripted{label: "v2", fail: x}))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Name != x || rep.Failures[0].Kept != KeptJournal {
		t.Fatalf("failures %+v, want %s keeping %q", rep.Failures, x, KeptJournal)
	}
	for _, r := range readInformal(t, ws.Dir) {
		if r.Name == x && (!strings.HasPrefix(r.InformalStatement, "v1: ") || r.Provider != "test:v1") {
			t.Errorf("%s's row %+v, want the interrupted run's answer", x, r)
		}
	}
}
