package extract

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/dataset/rauto"
)

// PremiseMarker follows each premise in a RAutoformalizer library header.
const PremiseMarker = rauto.PremiseMarker

// RefRow is one row of a RAutoformalizer library.jsonl, with its premises
// resolved from row indices to names.
type RefRow struct {
	rauto.Row
	premiseNames  []string
	normalizedKnd string
}

// auxRe matches compiler-generated auxiliary declarations.
var auxRe = regexp.MustCompile(`\.(proof_\d+|match_\d+|_eq_\d+|_unfold|_sunfold|eq_\d+|_lambda_\d+)$`)

// ErrReference is wrapped by errors about a malformed reference file.
var ErrReference = errors.New("malformed reference")

// ReadReference reads a RAutoformalizer library.jsonl with the same reader
// as `import rauto`, so both agree on what the file says.
func ReadReference(path string) ([]RefRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lib, err := rauto.Read(f, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReference, err)
	}
	rows := make([]RefRow, len(lib.Rows))
	for i, r := range lib.Rows {
		rows[i] = RefRow{Row: r, normalizedKnd: rauto.Kind(r.PType)}
	}
	for i := range rows {
		for _, p := range rows[i].UsedPremises {
			if p < 0 || p >= len(rows) {
				return nil, fmt.Errorf("%s: row %d: %w: premise index %d out of range", path, i+1, ErrReference, p)
			}
			rows[i].premiseNames = append(rows[i].premiseNames, rows[p].FullName)
		}
	}
	return rows, nil
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
	StmtRows    int                  `json:"statement_rows"`
	MissingName []string             `json:"missing_names_sample"`
	WorstDeps   []DepDiff            `json:"dependency_differences_sample"`
}

// DepDiff shows one row's dependency differences.
type DepDiff struct {
	Name    string   `json:"name"`
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
}

// EvalOptions configure Eval.
type EvalOptions struct {
	// Sources restricts the statement-dependency comparison to reference rows
	// of these code_src values (default: the reference's own project, i.e.
	// every source except mathlib4 and lean4).
	Sources []string
	// Samples bounds the sample lists in the report.
	Samples int
}

// Eval compares declarations.parquet with a RAutoformalizer library.
//
// Names: recall is over every reference row (by reference kind); precision is
// over our written (non-generated) rows that are comparable with the
// reference: rows whose file is a reference def_path and whose lines overlap
// a reference row's pos range there, since the reference holds a sample of
// each library, not every declaration.
//
// Statement dependencies: for each reference row of the project sources that
// we extracted, the gold set is its marked premises; the predicted set is our
// statement_deps restricted to names that are rows of the reference, because
// the reference can only mark premises it holds as rows. Counts are micro-
// averaged. StmtDepsRes additionally drops gold premises absent from our
// table (e.g. Lean core when its sources are not given).
func Eval(declsPath, refPath string, opt EvalOptions) (*EvalReport, error) {
	ref, err := ReadReference(refPath)
	if err != nil {
		return nil, err
	}
	rows, err := dataset.ReadTable[dataset.Declaration](declsPath)
	if err != nil {
		return nil, err
	}
	if opt.Samples == 0 {
		opt.Samples = 20
	}
	ours := make(map[string]*dataset.Declaration, len(rows))
	for i := range rows {
		if _, dup := ours[rows[i].Name]; !dup {
			ours[rows[i].Name] = &rows[i]
		}
	}
	refNames := map[string]bool{}
	for _, r := range ref {
		refNames[r.FullName] = true
	}
	rep := &EvalReport{Reference: refPath, RefRows: len(ref), NamesBySrc: map[string]KindScore{}}
	proj := map[string]bool{}
	if len(opt.Sources) > 0 {
		for _, s := range opt.Sources {
			proj[s] = true
		}
		rep.Scope = strings.Join(opt.Sources, ",")
	} else {
		for _, r := range ref {
			if r.CodeSrc != "mathlib4" && r.CodeSrc != "lean4" {
				proj[r.CodeSrc] = true
			}
		}
		var ks []string
		for k := range proj {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		rep.Scope = strings.Join(ks, ",")
	}

	// name recall by kind and by source
	byKind := map[string]*KindScore{}
	get := func(k string) *KindScore {
		if byKind[k] == nil {
			byKind[k] = &KindScore{Kind: k}
		}
		return byKind[k]
	}
	tops := map[string]bool{}
	for i := range rows {
		top, _, _ := strings.Cut(rows[i].Path, "/")
		tops[top] = true
	}
	for _, r := range ref {
		ks := get(r.normalizedKnd)
		ks.RefRows++
		top, _, _ := strings.Cut(r.DefPath, "/")
		extractable := tops[top] && !auxRe.MatchString(r.FullName)
		if extractable {
			ks.SrcRows++
			if ours[r.FullName] != nil {
				ks.SrcFound++
			}
		}
		src := rep.NamesBySrc[r.CodeSrc]
		src.Kind = r.CodeSrc
		src.RefRows++
		if ours[r.FullName] != nil {
			ks.Found++
			src.Found++
		} else if len(rep.MissingName) < opt.Samples && r.CodeSrc != "lean4" {
			rep.MissingName = append(rep.MissingName, r.FullName)
		}
		rep.NamesBySrc[r.CodeSrc] = src
	}
	// precision over comparable rows
	type span struct{ a, b int }
	spans := map[string][]span{}
	for _, r := range ref {
		if len(r.Pos) == 2 {
			spans[r.DefPath] = append(spans[r.DefPath], span{r.Pos[0], r.Pos[1]})
		}
	}
	for i := range rows {
		d := &rows[i]
		if d.GeneratedFrom != nil {
			continue
		}
		ok := false
		for _, s := range spans[d.Path] {
			if int(d.LineStart) <= s.b && int(d.LineEnd) >= s.a {
				ok = true
				break
			}
		}
		if !ok {
			continue
		}
		ks := get(d.Kind)
		if ks.RefRows == 0 {
			continue // the reference holds no rows of this kind (e.g. instances)
		}
		ks.Ours++
		if refNames[d.Name] {
			ks.Matched++
		}
	}
	for _, k := range dataset.Kinds {
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

	// statement dependencies
	type diffRow struct {
		d     DepDiff
		score int
	}
	var diffs []diffRow
	for _, r := range ref {
		if !proj[r.CodeSrc] {
			continue
		}
		d := ours[r.FullName]
		if d == nil {
			continue
		}
		rep.StmtRows++
		gold := map[string]bool{}
		for _, p := range r.premiseNames {
			gold[p] = true
		}
		pred := map[string]bool{}
		for _, p := range d.StatementDeps {
			if refNames[p] && p != r.FullName {
				pred[p] = true
			}
		}
		var dd DepDiff
		dd.Name = r.FullName
		for p := range gold {
			_, known := ours[p]
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
		}
		for p := range pred {
			rep.StmtDeps.Predicted++
			rep.StmtDepsRes.Predicted++
			if !gold[p] {
				dd.Extra = append(dd.Extra, p)
			}
		}
		if len(dd.Missing)+len(dd.Extra) > 0 {
			sort.Strings(dd.Missing)
			sort.Strings(dd.Extra)
			diffs = append(diffs, diffRow{dd, len(dd.Missing) + len(dd.Extra)})
		}
	}
	rep.StmtDeps.finish()
	rep.StmtDepsRes.finish()
	sort.SliceStable(diffs, func(i, j int) bool { return diffs[i].score > diffs[j].score })
	for i := 0; i < len(diffs) && i < opt.Samples; i++ {
		rep.WorstDeps = append(rep.WorstDeps, diffs[i].d)
	}
	return rep, nil
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
