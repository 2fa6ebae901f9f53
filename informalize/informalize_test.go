package informalize

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/workspace"
)

func openWS(t *testing.T, n int) (*workspace.Workspace, []workspace.Declaration) {
	t.Helper()
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ds := synthDecls(n, 7)
	writeFixture(t, ws.Dir, ds)
	return ws, ds
}

func checkTable(t *testing.T, ws *workspace.Workspace, ds []workspace.Declaration, provider string) []workspace.Informal {
	t.Helper()
	rows := readInformal(t, ws.Dir)
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.Name]++
		if r.Provider != provider || r.InformalName == "" || r.InformalStatement == "" || len(r.InputSHA256) != 64 || r.CreatedAt == "" {
			t.Errorf("bad row %+v", r)
		}
	}
	for _, d := range ds {
		if seen[d.Name] != 1 {
			t.Errorf("%s appears %d times in informal.parquet", d.Name, seen[d.Name])
		}
	}
	if len(rows) != len(ds) {
		t.Errorf("%d rows, want %d", len(rows), len(ds))
	}
	return rows
}

func TestTemplateRunAndRerun(t *testing.T) {
	ws, ds := openWS(t, 40)
	rep, err := Run(context.Background(), ws, quietOpts(Template{}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requested != 40 || rep.Failed != 0 || !rep.Compacted {
		t.Fatalf("report %+v", rep)
	}
	checkTable(t, ws, ds, "template")
	if ws.Has(workspace.InformalJournalFile) {
		t.Error("journal left after compaction")
	}
	m, _ := ws.ReadManifest()
	run := m.LastRun("informalize")
	if run == nil || !slices.ContainsFunc(run.Notes, func(s string) bool { return strings.Contains(s, "template fallback") }) {
		t.Errorf("manifest entry does not label the template fallback: %+v", run)
	}
	rep, err = Run(context.Background(), ws, quietOpts(Template{}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requested != 0 || rep.Reused != 40 {
		t.Errorf("rerun: %d new, %d reused; want 0 and 40", rep.Requested, rep.Reused)
	}
}

// TestLLMDependencyOrder checks that every prompt carries the informal
// statements of its in-selection dependencies and that cycles do not stall.
func TestLLMDependencyOrder(t *testing.T) {
	ws, ds := openWS(t, 60)
	deps := map[string][]string{}
	kind := map[string]string{}
	for _, d := range ds {
		deps[d.Name] = d.StatementDeps
		kind[d.Name] = d.Kind
	}
	var mu sync.Mutex
	var bad []string
	srv := newFake(fakeopenai.Options{Answer: func(r fakeopenai.Request) string {
		prompt := r.Chat.Messages[1].Content
		mu.Lock()
		defer mu.Unlock()
		for _, dep := range deps[r.Key] {
			if dep == r.Key || dep == "Nat.le" {
				continue
			}
			cyc := slices.Contains([]string{ds[3].Name, ds[4].Name, ds[5].Name}, r.Key)
			if !strings.Contains(prompt, "Statement of "+dep+".") && !cyc {
				bad = append(bad, r.Key+" lacks "+dep)
			}
		}
		if !strings.Contains(prompt, "- Nat.le") {
			bad = append(bad, r.Key+": outside dependency not listed by name")
		}
		if hasBody := strings.Contains(prompt, "Definition body:"); hasBody != (kind[r.Key] != workspace.KindTheorem) {
			bad = append(bad, r.Key+": definition body shown for a theorem or missing for a definition")
		}
		if !strings.Contains(prompt, "Module documentation (excerpt):\n# Module Lib.M") {
			bad = append(bad, r.Key+": no module docstring")
		}
		return fakeAnswer(r)
	}})
	defer srv.Close()
	rep, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv.BaseURL(), 8)))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%d prompts without their dependencies' statements, e.g. %v", len(bad), bad[:min(3, len(bad))])
	}
	if rep.CyclicNodes != 3 || rep.CycleEdges != 2 {
		t.Errorf("cycle handling: %d cyclic nodes, %d dropped edges; want 3 and 2 (one cycle edge, one self loop)", rep.CyclicNodes, rep.CycleEdges)
	}
	checkTable(t, ws, ds, "openai:fake")
	if rep.Usage.Requests != 60 || rep.Usage.CostUSD <= 0 || rep.PromptTokens == 0 {
		t.Errorf("usage %+v", rep.Usage)
	}
}

// TestFaultyServer runs against a server that is slow, rate-limits, fails,
// drops connections and sends malformed or empty content.
func TestFaultyServer(t *testing.T) {
	ws, ds := openWS(t, 80)
	hopeless := ds[10].Name
	srv := newFake(fakeopenai.Options{SlowDelay: 2e9, RetryAfter: 5e6, Fault: func(r fakeopenai.Request) fakeopenai.Fault {
		if r.Key == hopeless {
			return fakeopenai.Malformed
		}
		faults := []fakeopenai.Fault{fakeopenai.RateLimit, fakeopenai.ServerError, fakeopenai.Drop, fakeopenai.Malformed,
			fakeopenai.Empty, fakeopenai.Slow, fakeopenai.BadBody, fakeopenai.Unavailable, fakeopenai.NoChoices}
		if r.Attempt == 1 {
			return faults[int(r.Seq)%len(faults)]
		}
		return fakeopenai.OK
	}})
	defer srv.Close()
	p := llmProvider(t, srv.BaseURL(), 8)
	var out bytes.Buffer
	opts := quietOpts(p)
	opts.Out = &out
	rep, err := Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || len(rep.Failures) != 1 || rep.Failures[0].Name != hopeless || !strings.Contains(rep.Failures[0].Reason, "bad answer") {
		t.Fatalf("failures %+v", rep.Failures)
	}
	if rep.Requested != 79 {
		t.Errorf("%d answers, want 79", rep.Requested)
	}
	if rep.Usage.Retries == 0 || rep.Usage.RateLimited == 0 {
		t.Errorf("accounting shows no retries: %+v", rep.Usage)
	}
	// The failed one keeps the labelled template fallback: nothing is lost.
	rows := readInformal(t, ws.Dir)
	if len(rows) != 80 {
		t.Errorf("table has %d rows, want 80", len(rows))
	}
	for _, r := range rows {
		if r.Name == hopeless {
			if r.Provider != "template" || r.InputSHA256 != "" || r.InformalStatement == "" {
				t.Errorf("failed declaration's row %+v, want the template fallback with no reuse key", r)
			}
			continue
		}
		if want := "Statement of " + r.Name + "."; r.InformalStatement != want {
			t.Errorf("%s: statement %q", r.Name, r.InformalStatement)
		}
	}
	failed, err := os.ReadFile(filepath.Join(ws.Dir, FailedFile))
	if err != nil || !strings.Contains(string(failed), hopeless) || !strings.Contains(string(failed), `"kept":"template fallback"`) {
		t.Errorf("failed file: %v %q", err, failed)
	}
	if s := rep.Summary(); !strings.Contains(s, "1 failed") || !strings.Contains(s, hopeless) {
		t.Errorf("summary does not account for the failure:\n%s", s)
	}
	// The hopeless one got its first answer plus two repairs.
	if got := srv.Stats()[hopeless].Requests; got != 3 {
		t.Errorf("hopeless declaration asked %d times, want 3", got)
	}
	// A rerun retries only the failed declaration (and what depends on it).
	srv.ResetStats()
	rep, err = Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || rep.Reused+rep.Requested+rep.Failed != 80 {
		t.Errorf("rerun report %+v", rep)
	}
}

// TestFailedAnswerKeepsRow: a declaration whose answers are all the
// prompt's placeholders copied back fails (counted as placeholders) and
// keeps the row it had; the others get the model's text; the table keeps
// every declaration, and the failure list says what was kept.
func TestFailedAnswerKeepsRow(t *testing.T) {
	ws, ds := openWS(t, 12)
	if _, err := Run(context.Background(), ws, quietOpts(Template{})); err != nil {
		t.Fatal(err)
	}
	before := map[string]workspace.Informal{}
	for _, r := range readInformal(t, ws.Dir) {
		before[r.Name] = r
	}
	copier := ds[3].Name
	srv := newFake(fakeopenai.Options{Answer: func(r fakeopenai.Request) string {
		if r.Key == copier {
			return `{"informal_name": "...", "informal_statement": "...}"}`
		}
		return fakeAnswer(r)
	}})
	defer srv.Close()
	p := llmProvider(t, srv.BaseURL(), 4)
	rep, err := Run(context.Background(), ws, quietOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || rep.Placeholders != 3 || len(rep.Failures) != 1 || rep.Failures[0].Kept != KeptPrevious {
		t.Fatalf("failed %d, placeholders %d, failures %+v", rep.Failed, rep.Placeholders, rep.Failures)
	}
	if s := rep.Summary(); !strings.Contains(s, "3 placeholder answers rejected") || !strings.Contains(s, "kept: previous row") {
		t.Errorf("summary:\n%s", s)
	}
	rows := readInformal(t, ws.Dir)
	if len(rows) != len(ds) || rep.Rows != int64(len(ds)) {
		t.Fatalf("%d rows (report %d), want %d", len(rows), rep.Rows, len(ds))
	}
	for _, r := range rows {
		switch {
		case r.Name == copier:
			if b := before[copier]; r.InformalStatement != b.InformalStatement || r.Provider != "template" || r.InputSHA256 != b.InputSHA256 {
				t.Errorf("failed declaration's row %+v, want its previous one %+v", r, b)
			}
		case r.Provider != p.Name():
			t.Errorf("%s: provider %q", r.Name, r.Provider)
		}
	}
	// The next run asks for it again (its row's key is the template's).
	rep, err = Run(context.Background(), ws, quietOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reused != len(ds)-1 || rep.Failed != 1 {
		t.Errorf("rerun: %d reused, %d failed", rep.Reused, rep.Failed)
	}
}

// dependents lists the declarations of ds whose statements use one of
// names (directly, or transitively when closure), without names themselves.
func dependents(ds []workspace.Declaration, names []string, closure bool) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	out := map[string]bool{}
	for grew := true; grew; grew = closure && grew {
		grew = false
		for _, d := range ds {
			if set[d.Name] || out[d.Name] {
				continue
			}
			for _, dep := range d.StatementDeps {
				if set[dep] || closure && out[dep] {
					out[d.Name], grew = true, true
					break
				}
			}
		}
	}
	return out
}

// TestIncremental changes one signature in a synthetic library and checks
// that the default rule redoes it and its direct dependents only, while
// RefreshDependents redoes the whole cascade below it.
func TestIncremental(t *testing.T) {
	ds := synthDecls(200, 7)
	// A declaration with dependents of dependents, away from the cycle.
	x := -1
	for i := 6; i < len(ds); i++ {
		direct := dependents(ds, []string{ds[i].Name}, false)
		all := dependents(ds, []string{ds[i].Name}, true)
		if len(direct) >= 2 && len(all) > len(direct)+3 {
			x = i
			break
		}
	}
	if x < 0 {
		t.Fatal("no declaration with a deep cascade in the synthetic library")
	}
	for _, refresh := range []bool{false, true} {
		ws, err := workspace.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		v1 := slices.Clone(ds)
		writeFixture(t, ws.Dir, v1)
		srv := newFake(labelled("v1"))
		defer srv.Close()
		if _, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv.BaseURL(), 4))); err != nil {
			t.Fatal(err)
		}
		v2 := slices.Clone(ds)
		v2[x].Signature = "(y : ℤ) : y = y"
		writeFixture(t, ws.Dir, v2)
		want := dependents(v2, []string{ds[x].Name}, refresh)
		wantDep := len(want)
		want[ds[x].Name] = true
		srv2 := newFake(labelled("v2"))
		defer srv2.Close()
		opts := quietOpts(llmProvider(t, srv2.BaseURL(), 4))
		opts.RefreshDependents = refresh
		// The dry run of either rule predicts both.
		opts.DryRun = true
		dry, err := Run(context.Background(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		direct, all := 1+len(dependents(v2, []string{ds[x].Name}, false)), 1+len(dependents(v2, []string{ds[x].Name}, true))
		if this := map[bool][2]int{false: {direct, all}, true: {all, direct}}[refresh]; dry.Requested != this[0] || dry.AltRedo != this[1] {
			t.Errorf("refresh=%v: dry run predicts %d to redo and %d with the other rule, want %d and %d", refresh, dry.Requested, dry.AltRedo, this[0], this[1])
		}
		opts.DryRun = false
		rep, err := Run(context.Background(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		wantL := slices.Sorted(maps.Keys(want))
		if got := asked(t, srv2); !slices.Equal(got, wantL) {
			t.Errorf("refresh=%v: redone %v\nwant %v", refresh, got, wantL)
		}
		if rep.Changed != 1 || rep.DepChanged != wantDep || rep.Reused != len(ds)-len(want) || rep.New != 0 {
			t.Errorf("refresh=%v: %s", refresh, rep.Summary())
		}
		checkTable(t, ws, v2, "openai:fake")
	}
}

func TestTornJournalTolerated(t *testing.T) {
	ws, ds := openWS(t, 20)
	// A journal from a crashed run: two good lines, then half a line.
	sha := strings.Repeat("a", 64)
	j := `{"name":"x","status":"ok","input_sha256":"` + sha + `","informal_name":"n","informal_statement":"s","provider":"template","prompt_version":"template-v1","prompt_tokens":0,"completion_tokens":0,"created_at":"2026-01-01T00:00:00Z"}` + "\n" +
		"not json at all\n" +
		`{"name":"Lib.N0.decl_000","status":"ok","input_sha2`
	os.WriteFile(ws.Path(workspace.InformalJournalFile), []byte(j), 0o644)
	var out bytes.Buffer
	opts := quietOpts(Template{})
	opts.Out = &out
	rep, err := Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TornLines != 1 || rep.BadLines != 1 {
		t.Errorf("torn %d bad %d, want 1 and 1", rep.TornLines, rep.BadLines)
	}
	if !strings.Contains(out.String(), "torn") {
		t.Errorf("torn line not reported: %q", out.String())
	}
	checkTable(t, ws, ds, "template")
}

func TestSelectionAndDryRun(t *testing.T) {
	ws, _ := openWS(t, 40)
	srv := newFake(fakeopenai.Options{})
	defer srv.Close()
	p := llmProvider(t, srv.BaseURL(), 4)
	var out bytes.Buffer
	opts := quietOpts(p)
	opts.Out, opts.DryRun, opts.Prices = &out, true, p.Client.Config().Prices
	opts.Kinds, opts.Modules = []string{workspace.KindTheorem}, []string{"Lib.M1", "Lib.M2"}
	rep, err := Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 0 || ws.Has(workspace.InformalFile) || ws.Has(workspace.InformalJournalFile) {
		t.Error("dry run requested or wrote something")
	}
	if rep.Selected == 0 || rep.Selected >= 20 || rep.EstPromptTokens == 0 || rep.EstCostUSD <= 0 {
		t.Errorf("dry run report %+v", rep)
	}
	if !strings.Contains(out.String(), "estimated cost") {
		t.Errorf("dry run output %q", out.String())
	}
	opts.DryRun, opts.Limit = false, 5
	rep, err = Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	rows := readInformal(t, ws.Dir)
	if rep.Selected != 5 || len(rows) != 5 {
		t.Errorf("limit 5: selected %d, rows %d", rep.Selected, len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(r.Name, "decl_") {
			t.Errorf("row %s", r.Name)
		}
	}
	// Rows outside a later selection are kept.
	opts.Limit, opts.Modules = 0, []string{"Lib.M3"}
	if _, err := Run(context.Background(), ws, opts); err != nil {
		t.Fatal(err)
	}
	if rows2 := readInformal(t, ws.Dir); len(rows2) <= 5 {
		t.Errorf("second selection left %d rows", len(rows2))
	}
}

func TestGuardsForeignTableAndBusy(t *testing.T) {
	ws, _ := openWS(t, 5)
	os.WriteFile(ws.Path(workspace.InformalFile), []byte("hand made"), 0o644)
	_, err := Run(context.Background(), ws, quietOpts(Template{}))
	if !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("err %v, want ErrForeignOutput", err)
	}
	os.Remove(ws.Path(workspace.InformalFile))
	st, err := prepare(ws, quietOpts(Template{}))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	// another run: another Workspace value (Lock is re-entrant on one value)
	other, _ := workspace.OpenExisting(ws.Dir)
	if _, err := Run(context.Background(), other, quietOpts(Template{})); !errors.Is(err, ErrBusy) || !errors.Is(err, workspace.ErrBusy) {
		t.Errorf("concurrent run: %v, want workspace.ErrBusy", err)
	}
}

func TestCancelKeepsJournal(t *testing.T) {
	ws, _ := openWS(t, 60)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	srv := newFake(fakeopenai.Options{Latency: 5e6, Answer: func(r fakeopenai.Request) string {
		if r.Seq == 20 {
			once.Do(cancel)
		}
		return fakeAnswer(r)
	}})
	defer srv.Close()
	rep, err := Run(ctx, ws, quietOpts(llmProvider(t, srv.BaseURL(), 4)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want canceled", err)
	}
	if ws.Has(workspace.InformalFile) {
		t.Error("table written after cancellation")
	}
	done := journalNames(t, ws.Dir)
	if len(done) == 0 || len(done) != rep.Requested {
		t.Errorf("journal has %d answers, report %d", len(done), rep.Requested)
	}
}

// TestReadyQueueSaturates checks that dependency order does not serialize a
// wide library: once the common dependency is done, every worker is busy.
func TestReadyQueueSaturates(t *testing.T) {
	ws, ds := openWS(t, 100)
	for i := range ds {
		ds[i].StatementDeps = nil
		if i > 0 {
			ds[i].StatementDeps = []string{ds[0].Name}
		}
	}
	writeFixture(t, ws.Dir, ds)
	srv := newFake(fakeopenai.Options{Latency: 20e6})
	defer srv.Close()
	rep, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv.BaseURL(), 8)))
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.MaxInFlight(); got != 8 {
		t.Errorf("at most %d requests in flight, want the full concurrency 8", got)
	}
	if rep.Depth != 2 || rep.Requested != 100 {
		t.Errorf("depth %d, answers %d", rep.Depth, rep.Requested)
	}
}

// TestDependencyDetailsDoNotCascade changes everything about a definition
// except its statement (docstring, body, the names its signature resolves
// to, its module): it is redone, its dependents are not. Mathlib's AddMonoid
// changing a default field value is the case in point.
func TestDependencyDetailsDoNotCascade(t *testing.T) {
	ds := synthDecls(120, 7)
	x := -1
	for i := 6; i < len(ds); i++ {
		if ds[i].Kind == workspace.KindDefinition && len(dependents(ds, []string{ds[i].Name}, false)) >= 2 {
			x = i
			break
		}
	}
	if x < 0 {
		t.Fatal("no definition with dependents in the synthetic library")
	}
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFixture(t, ws.Dir, ds)
	srv := newFake(labelled("v1"))
	defer srv.Close()
	if _, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv.BaseURL(), 4))); err != nil {
		t.Fatal(err)
	}
	ds[x].Docstring = strp("A new docstring.")
	ds[x].Code += " -- a new body"
	ds[x].StatementDeps = append(ds[x].StatementDeps, "Int.le")
	ds[x].Module = "Lib.Moved"
	writeFixture(t, ws.Dir, ds)
	srv2 := newFake(labelled("v2"))
	defer srv2.Close()
	rep, err := Run(context.Background(), ws, quietOpts(llmProvider(t, srv2.BaseURL(), 4)))
	if err != nil {
		t.Fatal(err)
	}
	if got := asked(t, srv2); !slices.Equal(got, []string{ds[x].Name}) {
		t.Errorf("asked %v, want only %s", got, ds[x].Name)
	}
	if rep.Changed != 1 || rep.DepChanged != 0 || rep.Reused != len(ds)-1 {
		t.Errorf("%s", rep.Summary())
	}
}
