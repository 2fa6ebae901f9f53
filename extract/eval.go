package extract

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/extract/rauto"
	"github.com/driftkit/driftkit/workspace"
)

// PremiseMarker follows each premise in a RAutoformalizer library header.
const PremiseMarker = rauto.PremiseMarker

// RefRow is one declaration of an elaborated reference, whatever its
// format: a RAutoformalizer library row, or a row of a workspace made by an
// importer of elaborated exports (import jixia, import lean4export).
type RefRow struct {
	Name string
	Kind string
	// Source is the row's library (RAutoformalizer's code_src: con-nf,
	// mathlib4, lean4; a workspace row's library).
	Source string
	// Path is the source file (def_path); Lines its 1-based line span, zero
	// when the reference does not know it (lean4export).
	Path  string
	Lines [2]int
	// Premises are the gold statement dependencies; ProofDeps the gold proof
	// dependencies when the reference has them (workspace references).
	Premises  []string
	ProofDeps []string
}

// Reference is an elaborated account of a library that a source extraction
// is scored against.
type Reference struct {
	Label string
	Rows  []RefRow
	// Sampled: the reference holds a sample of each library, not every
	// declaration (RAutoformalizer's library), so precision is measured only
	// on our rows whose lines overlap a reference row's.
	Sampled bool
	// HasProofDeps: the rows carry proof dependencies worth scoring.
	HasProofDeps bool
	// Scope is the default set of sources whose rows are scored for
	// dependencies.
	Scope []string
}

// auxRe matches compiler-generated auxiliary declarations.
var auxRe = regexp.MustCompile(`\.(proof_\d+|match_\d+|_eq_\d+|_unfold|_sunfold|eq_\d+|_lambda_\d+)$`)

// ErrReference is wrapped by errors about a malformed reference file.
var ErrReference = errors.New("malformed reference")

// ReadReference reads a RAutoformalizer library.jsonl with the same reader
// as `import rauto`, so both agree on what the file says.
func ReadReference(path string) (*Reference, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lib, err := rauto.Read(f, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReference, err)
	}
	ref := &Reference{Label: path, Sampled: true, Rows: make([]RefRow, len(lib.Rows))}
	for i, r := range lib.Rows {
		rr := RefRow{Name: r.FullName, Kind: rauto.Kind(r.PType), Source: r.CodeSrc, Path: r.DefPath}
		if len(r.Pos) == 2 {
			rr.Lines = [2]int{r.Pos[0], r.Pos[1]}
		}
		for _, p := range r.UsedPremises {
			if p < 0 || p >= len(lib.Rows) {
				return nil, fmt.Errorf("%s: row %d: %w: premise index %d out of range", path, i+1, ErrReference, p)
			}
			rr.Premises = append(rr.Premises, lib.Rows[p].FullName)
		}
		ref.Rows[i] = rr
	}
	seen := map[string]bool{}
	for _, r := range ref.Rows {
		if r.Source != "mathlib4" && r.Source != "lean4" && !seen[r.Source] {
			seen[r.Source] = true
			ref.Scope = append(ref.Scope, r.Source)
		}
	}
	sort.Strings(ref.Scope)
	return ref, nil
}

// ReadReferenceTable reads the declarations.parquet of a workspace made by
// an importer of elaborated exports (or any workspace) as a reference: every
// row with its statement and proof dependencies.
func ReadReferenceTable(declsPath string) (*Reference, error) {
	ref := &Reference{Label: declsPath, HasProofDeps: true}
	seen := map[string]bool{}
	err := workspace.EachRow(declsPath, func(d *workspace.Declaration) error {
		r := RefRow{Name: strings.Clone(d.Name), Kind: strings.Clone(d.Kind), Source: strings.Clone(d.Library),
			Path: strings.Clone(d.Path), Premises: slices.Clone(d.StatementDeps), ProofDeps: slices.Clone(d.ProofDeps)}
		if d.LineStart > 0 {
			r.Lines = [2]int{int(d.LineStart), int(d.LineEnd)}
		}
		if !seen[r.Source] {
			seen[r.Source] = true
			ref.Scope = append(ref.Scope, r.Source)
		}
		ref.Rows = append(ref.Rows, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReference, err)
	}
	if len(ref.Rows) == 0 {
		return nil, fmt.Errorf("%s: %w: no declarations", declsPath, ErrReference)
	}
	sort.Strings(ref.Scope)
	return ref, nil
}

// KindScore is name recall/precision for one kind.
type KindScore struct {
	Kind    string  `json:"kind"`
	RefRows int     `json:"reference_rows"`
	Found   int     `json:"found"`
	Recall  float64 `json:"recall"`
	// RecallSrc is recall over the rows a source reader can produce: rows
	// of the sources given (e.g. not Lean core without its sources) and not
	// compiler-generated auxiliaries (foo.proof_1, match_1, …).
	SrcRows   int     `json:"extractable_rows"`
	SrcFound  int     `json:"extractable_found"`
	RecallSrc float64 `json:"extractable_recall"`
	Ours      int     `json:"comparable_rows"`
	Matched   int     `json:"matched"`
	Precision float64 `json:"precision"`
}

// PRF is precision/recall/F1 with the counts behind them.
type PRF struct {
	TP        int     `json:"tp"`
	Predicted int     `json:"predicted"`
	Gold      int     `json:"gold"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

func (p *PRF) finish() {
	if p.Predicted > 0 {
		p.Precision = float64(p.TP) / float64(p.Predicted)
	}
	if p.Gold > 0 {
		p.Recall = float64(p.TP) / float64(p.Gold)
	}
	if p.Precision+p.Recall > 0 {
		p.F1 = 2 * p.Precision * p.Recall / (p.Precision + p.Recall)
	}
}

// EvalReport is the result of comparing an extraction with a reference.
type EvalReport struct {
	Reference   string               `json:"reference"`
	RefRows     int                  `json:"reference_rows"`
	Scope       string               `json:"scope"`
	Names       []KindScore          `json:"names"`
	NamesBySrc  map[string]KindScore `json:"names_by_source"`
	StmtDeps    PRF                  `json:"statement_deps"`
	StmtDepsRes PRF                  `json:"statement_deps_resolvable"`
	// StmtDepsPremise keeps only premises of premise kinds (definitions,
	// structures, classes, …; not theorems or instances) on both sides: the
	// part of an elaborated type a reader of the source can name.
	StmtDepsPremise PRF `json:"statement_deps_premise_kinds"`
	// ProofDeps is scored when the reference has proof dependencies
	// (workspace references): ours against the constants of the elaborated
	// proof, restricted to reference names.
	ProofDeps   *PRF      `json:"proof_deps,omitempty"`
	StmtRows    int       `json:"statement_rows"`
	MissingName []string  `json:"missing_names_sample"`
	WorstDeps   []DepDiff `json:"dependency_differences_sample"`
}

// DepDiff shows one row's dependency differences.
type DepDiff struct {
	Name    string   `json:"name"`
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
}

// EvalOptions configure Eval.
type EvalOptions struct {
	// Sources restricts the dependency comparison to reference rows of these
	// sources (default: the reference's Scope; for RAutoformalizer's library
	// every code_src except mathlib4 and lean4; for a workspace, its
	// libraries that our table also has).
	Sources []string
	// Samples bounds the sample lists in the report.
	Samples int
}

// Eval compares declarations.parquet with a RAutoformalizer library.
func Eval(declsPath, refPath string, opt EvalOptions) (*EvalReport, error) {
	ref, err := ReadReference(refPath)
	if err != nil {
		return nil, err
	}
	return EvalReference(declsPath, ref, opt)
}

// EvalReference compares declarations.parquet with an elaborated reference.
//
// Names: recall is over every reference row (by reference kind); precision is
// over our written (non-generated) rows that are comparable with the
// reference: for a sampled reference, rows whose file is a reference path and
// whose lines overlap a reference row's there; for a complete one, every
// written row of the sources in scope.
//
// Statement dependencies: for each reference row in scope that we extracted,
// the gold set is its premises; the predicted set is our statement_deps
// restricted to names that are rows of the reference, because the reference
// can only name premises it holds as rows (for a workspace reference the
// gold set is restricted the same way). Counts are micro-averaged.
// StmtDepsRes additionally drops gold premises absent from our table (e.g.
// Lean core when its sources are not given).
func EvalReference(declsPath string, ref *Reference, opt EvalOptions) (*EvalReport, error) {
	rows, err := workspace.ReadTable[workspace.Declaration](declsPath)
	if err != nil {
		return nil, err
	}
	if opt.Samples == 0 {
		opt.Samples = 20
	}
	e := newRefEval(rows, ref, opt)
	byKind := map[string]*KindScore{}
	e.nameRecall(byKind)
	e.namePrecision(byKind)
	e.finishNames(byKind)
	e.scoreDeps()
	return e.rep, nil
}

// refEval is one comparison of our declarations with a reference.
type refEval struct {
	ref  *Reference
	opt  EvalOptions
	rows []workspace.Declaration
	// ours indexes rows by name (the first of a name); refNames maps the
	// reference's names to their kinds.
	ours     map[string]*workspace.Declaration
	refNames map[string]string
	// proj are the sources (libraries) scored for dependencies.
	proj map[string]bool
	rep  *EvalReport
}

// newRefEval indexes both tables and decides the scope: opt.Sources, else
// the reference's (for a workspace reference, the libraries both have).
func newRefEval(rows []workspace.Declaration, ref *Reference, opt EvalOptions) *refEval {
	e := &refEval{ref: ref, opt: opt, rows: rows, ours: make(map[string]*workspace.Declaration, len(rows)),
		refNames: make(map[string]string, len(ref.Rows)), proj: map[string]bool{},
		rep: &EvalReport{Reference: ref.Label, RefRows: len(ref.Rows), NamesBySrc: map[string]KindScore{}}}
	ourLibs := map[string]bool{}
	for i := range rows {
		if _, dup := e.ours[rows[i].Name]; !dup {
			e.ours[rows[i].Name] = &rows[i]
		}
		ourLibs[rows[i].Library] = true
	}
	for _, r := range ref.Rows {
		e.refNames[r.Name] = r.Kind
	}
	scope := opt.Sources
	if len(scope) == 0 {
		scope = ref.Scope
		if !ref.Sampled {
			// a workspace reference: the libraries both tables have
			var both []string
			for _, s := range ref.Scope {
				if ourLibs[s] {
					both = append(both, s)
				}
			}
			if len(both) > 0 {
				scope = both
			}
		}
	}
	for _, s := range scope {
		e.proj[s] = true
	}
	e.rep.Scope = strings.Join(scope, ",")
	return e
}

// kindScore is byKind's entry for k, made on first use.
func kindScore(byKind map[string]*KindScore, k string) *KindScore {
	if byKind[k] == nil {
		byKind[k] = &KindScore{Kind: k}
	}
	return byKind[k]
}

// nameRecall counts the reference's names we have, by kind and by source;
// SrcRows/SrcFound only over names extractable from sources we read (not
// compiler auxiliaries, not in a folder we have no file of).
func (e *refEval) nameRecall(byKind map[string]*KindScore) {
	rep := e.rep
	tops := map[string]bool{}
	for i := range e.rows {
		top, _, _ := strings.Cut(e.rows[i].Path, "/")
		tops[top] = true
	}
	for _, r := range e.ref.Rows {
		ks := kindScore(byKind, r.Kind)
		ks.RefRows++
		extractable := !auxRe.MatchString(r.Name)
		if r.Path != "" {
			top, _, _ := strings.Cut(r.Path, "/")
			extractable = extractable && tops[top]
		}
		if extractable {
			ks.SrcRows++
			if e.ours[r.Name] != nil {
				ks.SrcFound++
			}
		}
		src := rep.NamesBySrc[r.Source]
		src.Kind = r.Source
		src.RefRows++
		if e.ours[r.Name] != nil {
			ks.Found++
			src.Found++
		} else if len(rep.MissingName) < e.opt.Samples && r.Source != "lean4" {
			rep.MissingName = append(rep.MissingName, r.Name)
		}
		rep.NamesBySrc[r.Source] = src
	}
}

// namePrecision counts our written rows that the reference could have
// (inside a reference row's lines, or of a scored library) and those it
// has, by kind.
func (e *refEval) namePrecision(byKind map[string]*KindScore) {
	type span struct{ a, b int }
	spans := map[string][]span{}
	for _, r := range e.ref.Rows {
		if r.Lines[0] > 0 && r.Path != "" {
			spans[r.Path] = append(spans[r.Path], span{r.Lines[0], r.Lines[1]})
		}
	}
	for i := range e.rows {
		d := &e.rows[i]
		if d.GeneratedFrom != nil {
			continue
		}
		ok := false
		if e.ref.Sampled || len(spans) > 0 {
			for _, s := range spans[d.Path] {
				if int(d.LineStart) <= s.b && int(d.LineEnd) >= s.a {
					ok = true
					break
				}
			}
		} else {
			ok = e.proj[d.Library]
		}
		if !ok {
			continue
		}
		ks := kindScore(byKind, d.Kind)
		if ks.RefRows == 0 {
			continue // the reference holds no rows of this kind (e.g. instances)
		}
		ks.Ours++
		if _, in := e.refNames[d.Name]; in {
			ks.Matched++
		}
	}
}

// finishNames computes the rates and lists the kinds in workspace order.
func (e *refEval) finishNames(byKind map[string]*KindScore) {
	rep := e.rep
	for _, k := range workspace.Kinds() {
		if ks := byKind[k]; ks != nil {
			if ks.RefRows > 0 {
				ks.Recall = float64(ks.Found) / float64(ks.RefRows)
			}
			if ks.SrcRows > 0 {
				ks.RecallSrc = float64(ks.SrcFound) / float64(ks.SrcRows)
			}
			if ks.Ours > 0 {
				ks.Precision = float64(ks.Matched) / float64(ks.Ours)
			}
			rep.Names = append(rep.Names, *ks)
		}
	}
	for k, s := range rep.NamesBySrc {
		if s.RefRows > 0 {
			s.Recall = float64(s.Found) / float64(s.RefRows)
		}
		rep.NamesBySrc[k] = s
	}
}

// depDiff is a row's dependency differences, scored by their number.
type depDiff struct {
	d     DepDiff
	score int
}

// scoreDeps compares statement (and, when the reference has them, proof)
// dependencies of the rows of scored sources that both tables have, and
// keeps the opt.Samples rows that differ most.
func (e *refEval) scoreDeps() {
	rep := e.rep
	var diffs []depDiff
	var proof PRF
	for _, r := range e.ref.Rows {
		if !e.proj[r.Source] {
			continue
		}
		d := e.ours[r.Name]
		if d == nil {
			continue
		}
		rep.StmtRows++
		dd := e.statementDeps(r, d)
		if e.ref.HasProofDeps {
			e.proofDeps(r, d, &proof)
		}
		if len(dd.Missing)+len(dd.Extra) > 0 {
			sort.Strings(dd.Missing)
			sort.Strings(dd.Extra)
			diffs = append(diffs, depDiff{dd, len(dd.Missing) + len(dd.Extra)})
		}
	}
	rep.StmtDeps.finish()
	rep.StmtDepsRes.finish()
	rep.StmtDepsPremise.finish()
	if e.ref.HasProofDeps {
		proof.finish()
		rep.ProofDeps = &proof
	}
	sort.SliceStable(diffs, func(i, j int) bool {
		if diffs[i].score != diffs[j].score {
			return diffs[i].score > diffs[j].score
		}
		return diffs[i].d.Name < diffs[j].d.Name
	})
	for i := 0; i < len(diffs) && i < e.opt.Samples; i++ {
		rep.WorstDeps = append(rep.WorstDeps, diffs[i].d)
	}
}

// statementDeps scores d's statement dependencies against the reference
// row r's premises (into rep's StmtDeps, StmtDepsRes, StmtDepsPremise) and
// returns the differences.
func (e *refEval) statementDeps(r RefRow, d *workspace.Declaration) DepDiff {
	rep := e.rep
	premiseKind := func(n string) bool { return workspace.IsPremiseKind(e.refNames[n]) }
	gold := map[string]bool{}
	for _, p := range r.Premises {
		// a sampled reference's premises are rows by construction; a
		// workspace's may name constants it has no row for (Lean core,
		// packages not imported), which neither side can be scored on
		if _, in := e.refNames[p]; p != r.Name && (e.ref.Sampled || in) {
			gold[p] = true
		}
	}
	pred := map[string]bool{}
	for _, p := range d.StatementDeps {
		if _, in := e.refNames[p]; in && p != r.Name {
			pred[p] = true
		}
	}
	dd := DepDiff{Name: r.Name}
	for p := range gold {
		_, known := e.ours[p]
		if pred[p] {
			rep.StmtDeps.TP++
			rep.StmtDepsRes.TP++
		} else {
			dd.Missing = append(dd.Missing, p)
		}
		rep.StmtDeps.Gold++
		if known {
			rep.StmtDepsRes.Gold++
		}
		if premiseKind(p) {
			rep.StmtDepsPremise.Gold++
			if pred[p] {
				rep.StmtDepsPremise.TP++
			}
		}
	}
	for p := range pred {
		rep.StmtDeps.Predicted++
		rep.StmtDepsRes.Predicted++
		if premiseKind(p) {
			rep.StmtDepsPremise.Predicted++
		}
		if !gold[p] {
			dd.Extra = append(dd.Extra, p)
		}
	}
	return dd
}

// proofDeps scores d's proof dependencies against r's into proof.
func (e *refEval) proofDeps(r RefRow, d *workspace.Declaration, proof *PRF) {
	pg := map[string]bool{}
	for _, p := range r.ProofDeps {
		if _, in := e.refNames[p]; p != r.Name && in {
			pg[p] = true
		}
	}
	proof.Gold += len(pg)
	seen := map[string]bool{}
	for _, p := range d.ProofDeps {
		if _, in := e.refNames[p]; !in || p == r.Name || seen[p] {
			continue
		}
		seen[p] = true
		proof.Predicted++
		if pg[p] {
			proof.TP++
		}
	}
}

// WriteText prints the report for people.
func (rep *EvalReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "reference %s: %d rows\n\nnames by kind (recall over reference rows; precision over comparable written rows)\n", rep.Reference, rep.RefRows)
	fmt.Fprintf(w, "  %-12s %6s %6s %8s   %6s %6s %8s   %6s %6s %9s\n", "kind", "ref", "found", "recall", "extr.", "found", "recall", "ours", "match", "precision")
	for _, k := range rep.Names {
		fmt.Fprintf(w, "  %-12s %6d %6d %7.2f%%   %6d %6d %7.2f%%   %6d %6d %8.2f%%\n", k.Kind, k.RefRows, k.Found, 100*k.Recall,
			k.SrcRows, k.SrcFound, 100*k.RecallSrc, k.Ours, k.Matched, 100*k.Precision)
	}
	fmt.Fprintf(w, "  (extr. = rows of the sources given, without compiler-generated auxiliaries such as foo.proof_1)\n")
	var srcs []string
	for s := range rep.NamesBySrc {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	fmt.Fprintf(w, "\nnames by source\n")
	for _, s := range srcs {
		k := rep.NamesBySrc[s]
		fmt.Fprintf(w, "  %-12s %8d %8d %7.2f%%\n", s, k.RefRows, k.Found, 100*k.Recall)
	}
	p := rep.StmtDeps
	fmt.Fprintf(w, "\nstatement dependencies (%s rows found: %d; predictions restricted to reference names)\n", rep.Scope, rep.StmtRows)
	fmt.Fprintf(w, "  precision %.2f%%  recall %.2f%%  F1 %.2f%%   (tp %d, predicted %d, gold %d)\n", 100*p.Precision, 100*p.Recall, 100*p.F1, p.TP, p.Predicted, p.Gold)
	p = rep.StmtDepsRes
	fmt.Fprintf(w, "  gold limited to names in our table: precision %.2f%%  recall %.2f%%  F1 %.2f%%  (gold %d)\n", 100*p.Precision, 100*p.Recall, 100*p.F1, p.Gold)
	p = rep.StmtDepsPremise
	fmt.Fprintf(w, "  premise kinds only (no theorems, instances): precision %.2f%%  recall %.2f%%  F1 %.2f%%  (tp %d, predicted %d, gold %d)\n", 100*p.Precision, 100*p.Recall, 100*p.F1, p.TP, p.Predicted, p.Gold)
	if rep.ProofDeps != nil {
		p = *rep.ProofDeps
		fmt.Fprintf(w, "\nproof dependencies (against the constants of the elaborated proofs)\n  precision %.2f%%  recall %.2f%%  F1 %.2f%%   (tp %d, predicted %d, gold %d)\n", 100*p.Precision, 100*p.Recall, 100*p.F1, p.TP, p.Predicted, p.Gold)
	}
	if len(rep.MissingName) > 0 {
		fmt.Fprintf(w, "\nmissing names (sample): %s\n", strings.Join(rep.MissingName, ", "))
	}
	if len(rep.WorstDeps) > 0 {
		fmt.Fprintf(w, "\nlargest dependency differences (sample)\n")
		for _, d := range rep.WorstDeps {
			fmt.Fprintf(w, "  %s\n    missing: %s\n    extra:   %s\n", d.Name, strings.Join(d.Missing, " "), strings.Join(d.Extra, " "))
		}
	}
}
