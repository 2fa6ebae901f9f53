package extract

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fuzzSeeds returns the seed corpus: testdata/seeds/*.lean.
func fuzzSeeds(tb testing.TB) [][]byte {
	paths, _ := filepath.Glob("testdata/seeds/*.lean")
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func rowsByName(rows []workspace.Declaration) map[string]workspace.Declaration {
	m := map[string]workspace.Declaration{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return m
}

func parse(t *testing.T, src string) map[string]workspace.Declaration {
	t.Helper()
	rows, _, errs := ParseFile([]byte(src), "Test/File.lean", "test")
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	return rowsByName(rows)
}

func TestDeclarations(t *testing.T) {
	src := `
import Foo.Bar
/-! Module doc. -/
universe u
namespace A.B
/-- doc of f -/
@[simp, to_additive add_f "additive doc"]
private noncomputable def f {α : Type u} (x : α) : α := x
theorem t₁ : f 1 = 1 := by
  simp [f]
lemma _root_.rootLemma (n : Nat) : n = n := rfl
structure S (α : Type) extends Inhabited α where
  mk' ::
  /-- the field -/
  val : α
  (p q : Nat)
  val := default
class inductive C : Prop
  | yes | no
inductive I
  | z : I
  /-- succ -/
  | s (i : I) : I
def g (n : Nat) : Nat := go n
where
  go : Nat → Nat
  | 0 => 0
  | n + 1 => go n
alias g' := g
alias ⟨mp_name, mpr_name⟩ := t₁
instance : Inhabited (S Nat) := ⟨⟨0⟩, 0, 0, 0⟩
@[ext] structure E where
  x : Nat
end A.B
example : True := trivial
`
	m := parse(t, src)
	want := map[string]struct{ kind, gen string }{
		"A.B.f":                 {"definition", ""},
		"A.B.add_f":             {"definition", "A.B.f"},
		"A.B.t₁":                {"theorem", ""},
		"rootLemma":             {"theorem", ""},
		"A.B.S":                 {"structure", ""},
		"A.B.S.mk'":             {"constructor", "A.B.S"},
		"A.B.S.val":             {"projection", "A.B.S"},
		"A.B.S.p":               {"projection", "A.B.S"},
		"A.B.S.q":               {"projection", "A.B.S"},
		"A.B.S.toInhabited":     {"projection", "A.B.S"},
		"A.B.C":                 {"class", ""},
		"A.B.C.yes":             {"constructor", "A.B.C"},
		"A.B.C.no":              {"constructor", "A.B.C"},
		"A.B.I.z":               {"constructor", "A.B.I"},
		"A.B.I.s":               {"constructor", "A.B.I"},
		"A.B.g":                 {"definition", ""},
		"A.B.g.go":              {"definition", "A.B.g"},
		"A.B.g'":                {"definition", "A.B.g"},
		"A.B.mp_name":           {"theorem", "A.B.t₁"},
		"A.B.mpr_name":          {"theorem", "A.B.t₁"},
		"A.B.instInhabitedSNat": {"instance", ""},
		"A.B.I":                 {"inductive", ""},
		"A.B.E":                 {"structure", ""},
		"A.B.E.mk":              {"constructor", "A.B.E"},
		"A.B.E.x":               {"projection", "A.B.E"},
		"A.B.E.ext":             {"theorem", "A.B.E"},
		"A.B.E.ext_iff":         {"theorem", "A.B.E"},
	}
	for name, w := range want {
		r, ok := m[name]
		if !ok {
			t.Errorf("missing %s", name)
			continue
		}
		gen := ""
		if r.GeneratedFrom != nil {
			gen = *r.GeneratedFrom
		}
		if r.Kind != w.kind || gen != w.gen {
			t.Errorf("%s: kind %s from %q, want %s from %q", name, r.Kind, gen, w.kind, w.gen)
		}
	}
	if len(m) != len(want) {
		var extra []string
		for n := range m {
			if _, ok := want[n]; !ok {
				extra = append(extra, n)
			}
		}
		t.Errorf("unexpected rows %v", extra)
	}
	f := m["A.B.f"]
	if f.Docstring == nil || *f.Docstring != "doc of f" {
		t.Errorf("docstring %v", f.Docstring)
	}
	if !slices.Equal(f.Modifiers, []string{"private", "noncomputable"}) || !slices.Equal(f.Attributes, []string{"simp", "to_additive"}) {
		t.Errorf("modifiers %v attributes %v", f.Modifiers, f.Attributes)
	}
	if f.Signature != "{α : Type u} (x : α) : α" || f.Namespace != "A.B" || f.LineStart != 6 || f.LineEnd != 8 {
		t.Errorf("signature %q namespace %q lines %d-%d", f.Signature, f.Namespace, f.LineStart, f.LineEnd)
	}
	if m["A.B.S.val"].Docstring == nil || *m["A.B.S.val"].Docstring != "the field" {
		t.Errorf("field doc %v", m["A.B.S.val"].Docstring)
	}
	if !slices.Contains(m["A.B.t₁"].StatementDeps, "A.B.f") || !slices.Contains(m["A.B.g"].ProofDeps, "A.B.g.go") {
		t.Errorf("deps: t₁ %v, g %v", m["A.B.t₁"].StatementDeps, m["A.B.g"].ProofDeps)
	}
}

func TestResolution(t *testing.T) {
	src := `
namespace N
def base : Nat := 0
protected def prot : Nat := 0
structure P where
  x : Nat
def P.double (p : P) : Nat := p.x
end N
namespace M
def base : Nat := 1
open N in
theorem uses_open : N.base = N.prot := rfl
theorem inner : base = base := rfl
theorem rooted : _root_.N.base = 0 := rfl
theorem field (p : N.P) : p.double = p.x := rfl
end M
section
variable {α : Type} [Inhabited α] (a : α) (unused : Nat)
open N
theorem var_use : a = a ∧ base = 0 := sorry
theorem no_prot : prot = 0 := sorry
omit [Inhabited α] in
theorem omitted : a = a := rfl
end
namespace K
def kk : Nat := 0
end K
namespace L
def ll : Nat := 0
end L
open K in
open L in
theorem nested_in : kk = ll := rfl
theorem after_nested : kk = ll := sorry
`
	m := parse(t, src)
	tests := []struct {
		name string
		want []string
	}{
		{"M.uses_open", []string{"N.base", "N.prot"}},
		{"M.inner", []string{"M.base"}},
		{"M.rooted", []string{"N.base"}},
		{"M.field", []string{"N.P", "N.P.double", "N.P.x"}},
		{"var_use", []string{"Inhabited", "N.base"}},
		{"no_prot", nil},
		{"omitted", nil},
		// `open K in open L in decl`: both for decl, neither after it (#24:
		// keeping the inner state leaked K into later declarations)
		{"nested_in", []string{"K.kk", "L.ll"}},
		{"after_nested", nil},
	}
	for _, tc := range tests {
		got := m[tc.name].StatementDeps
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: statement deps %v, want %v", tc.name, got, tc.want)
		}
	}
	if m["no_prot"].Opens == nil || !slices.Contains(m["no_prot"].Opens, "N") {
		t.Errorf("opens %v", m["no_prot"].Opens)
	}
	if o := m["nested_in"].Opens; !slices.Contains(o, "K") || !slices.Contains(o, "L") {
		t.Errorf("nested_in opens %v, want K and L", o)
	}
	if o := m["after_nested"].Opens; slices.Contains(o, "K") || slices.Contains(o, "L") {
		t.Errorf("after_nested opens %v: an `open … in` leaked", o)
	}
}

func TestScopes(t *testing.T) {
	src := `
namespace A
section S
open B
def inS : Nat := 0
end S
def afterS : Nat := 0
end A
namespace A.B.C
def deep : Nat := 0
end A.B.C
set_option maxHeartbeats 0 in
def top : Nat := 0
`
	m := parse(t, src)
	for name, ns := range map[string]string{"A.inS": "A", "A.afterS": "A", "A.B.C.deep": "A.B.C", "top": ""} {
		r, ok := m[name]
		if !ok || r.Namespace != ns {
			t.Errorf("%s: present %v namespace %q, want %q", name, ok, r.Namespace, ns)
		}
	}
	if len(m["A.afterS"].Opens) != 0 {
		t.Errorf("open leaked out of section: %v", m["A.afterS"].Opens)
	}
}

func TestAttributeTwins(t *testing.T) {
	m := parse(t, `
namespace G
theorem mul_left_cancel_iff : True := trivial
theorem one_mul' : True := trivial
attribute [to_additive] mul_left_cancel_iff
attribute [to_additive zero_add_alt] one_mul'
def Iio : Nat := 0
attribute [to_dual existing] Iio
end G
`)
	for _, n := range []string{"G.add_left_cancel_iff", "G.zero_add_alt"} {
		if r, ok := m[n]; !ok || r.GeneratedFrom == nil {
			t.Errorf("missing twin %s", n)
		}
	}
	if _, ok := m["G.Ioi"]; ok {
		t.Error("to_dual existing must not create a declaration")
	}
}

func TestGuessAdditiveName(t *testing.T) {
	for in, want := range map[string]string{
		"mul_one": "add_zero", "prod_inv": "sum_neg", "Monoid": "AddMonoid", "npow_succ": "nsmul_succ",
		"IsSquare": "Even", "CommMonoid": "AddCommMonoid", "smul_comm": "vadd_comm", "FaithfulSMul": "FaithfulVAdd", "one_div": "zero_sub",
		// to_additive's order abbreviations, and mabs (PFR used these names)
		"mabs_of_lt_one": "abs_of_neg", "mabs_of_one_le": "abs_of_nonneg", "mabs_of_le_one": "abs_of_nonpos",
		"mabs_of_one_lt": "abs_of_pos", "le_mabs_self": "le_abs_self", "inv_le_mabs": "neg_le_abs",
	} {
		if got := GuessAdditiveName(in); got != want {
			t.Errorf("GuessAdditiveName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGuessDualName(t *testing.T) {
	for in, want := range map[string]string{
		"Iio": "Ioi", "mem_Iic": "mem_Ici", "WithBot": "WithTop", "BddBelow": "BddAbove", "iSup_le": "iInf_ge",
	} {
		if got := GuessDualName(in); got != want {
			t.Errorf("GuessDualName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBadFileKeepsGoing(t *testing.T) {
	src := "theorem ok1 : True := trivial\n/- unterminated\ntheorem lost : True := trivial\n"
	rows, mod, errs := ParseFile([]byte(src), "Bad.lean", "t")
	if len(errs) != 1 || !errors.Is(errs[0], ErrUnterminatedComment) {
		t.Fatalf("errors %v", errs)
	}
	var pe *ParseError
	if !errors.As(errs[0], &pe) || pe.Path != "Bad.lean" || pe.Line != 2 {
		t.Fatalf("error %v lacks file/line", errs[0])
	}
	if len(rows) != 1 || rows[0].Name != "ok1" || mod.Errors != 1 {
		t.Fatalf("rows %v, module errors %d", rows, mod.Errors)
	}
}

func FuzzParseFile(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// without a Lean version, and under Lean 4.29's rules (the
		// anonymous-instance namer, standalone deriving commands)
		for _, s := range []*Source{{Library: "fuzz"}, {Library: "fuzz", InstanceNames: InstanceNamesV48}} {
			rows, _, errs := parseOne(src, "Fuzz.lean", s)
			for _, e := range errs {
				if errors.Is(e, ErrPanic) {
					t.Fatalf("parser panicked (instance names %q): %v", s.InstanceNames, e)
				}
			}
			for _, r := range rows {
				if r.Name == "" || r.LineStart > r.LineEnd {
					t.Fatalf("bad row %+v", r)
				}
			}
		}
	})
}

func TestRun(t *testing.T) {
	src := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "Lib", "Sub"), 0o755))
	must(os.WriteFile(filepath.Join(src, "Lib", "Sub", "A.lean"), []byte("namespace Lib\ndef a : Nat := 0\ndef «structure» : Nat := 0\nend Lib\n"), 0o644))
	must(os.WriteFile(filepath.Join(src, "Lib", "B.lean"), []byte("import Lib.Sub.A\nopen Lib\ntheorem b : a = 0 := rfl\ntheorem c : «structure» = 0 := rfl\n/- broken"), 0o644))
	must(os.WriteFile(filepath.Join(src, ".revision"), []byte("abc123\n"), 0o644))
	ws, err := workspace.Open(t.TempDir())
	must(err)
	res, err := Run(context.Background(), ws, Options{Sources: []Source{{Dir: src, Library: "lib"}}, Workers: 2})
	must(err)
	if res.Files != 2 || res.Declarations != 4 || res.ErrorCount != 1 {
		t.Fatalf("result %+v", res)
	}
	decls, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	must(err)
	m := rowsByName(decls)
	if b := m["b"]; b.Module != "Lib.B" || b.Revision != "abc123" || b.Library != "lib" || !slices.Equal(b.StatementDeps, []string{"Lib.a"}) {
		t.Fatalf("row b: %+v", b)
	}
	// names are written as Lean prints them (canonicalRow, on the writer's encoders)
	if c := m["c"]; m["Lib.structure"].Kind != workspace.KindDefinition || !slices.Equal(c.StatementDeps, []string{"Lib.structure"}) {
		t.Fatalf("row c: %+v; names %v", c, slices.Sorted(maps.Keys(m)))
	}
	mods, err := workspace.ReadTable[workspace.Module](ws.Path(workspace.ModulesFile))
	must(err)
	if len(mods) != 2 || mods[0].Name != "Lib.B" || mods[0].Errors != 1 || !slices.Equal(mods[0].Imports, []string{"Lib.Sub.A"}) ||
		mods[0].Declarations != 2 || mods[1].Declarations != 2 {
		t.Fatalf("modules %+v", mods)
	}
	man, err := ws.ReadManifest()
	must(err)
	run := man.LastRun("extract")
	if run == nil || run.RowCounts["declarations"] != 4 || len(run.Phases) != 4 {
		t.Fatalf("manifest run %+v", run)
	}
	// a second run over a hand-edited output is refused
	must(os.WriteFile(ws.Path(workspace.ModulesFile), []byte("x"), 0o644))
	if _, err := Run(context.Background(), ws, Options{Sources: []Source{{Dir: src}}}); !errors.Is(err, workspace.ErrForeignOutput) {
		t.Fatalf("err %v, want ErrForeignOutput", err)
	}
}

// TestGolden compares the full rows of a few files of the bundled library
// with testdata/golden/*.golden (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	root := filepath.Join("..", "testdata", "lean")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("bundled library missing: %v", err) // committed with the repository; a skip would hide it
	}
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), ws, Options{Sources: []Source{{Dir: root, Library: "driftlib", Revision: "golden"}}}); err != nil {
		t.Fatal(err)
	}
	decls, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"Driftlib/Algebra/Field.lean", "Driftlib/Data/Set/Basic.lean", "Driftlib/Order/Lattice.lean"} {
		var b strings.Builder
		for _, d := range decls {
			if d.Path != path {
				continue
			}
			j, _ := json.Marshal(d)
			b.Write(j)
			b.WriteByte('\n')
		}
		if b.Len() == 0 {
			t.Errorf("%s: no rows", path)
			continue
		}
		golden := filepath.Join("testdata", "golden", strings.ReplaceAll(strings.TrimSuffix(path, ".lean"), "/", "_")+".golden")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if string(want) != b.String() {
			t.Errorf("%s: rows differ from %s (run with -update and review the diff)", path, golden)
		}
	}
}

func TestIffDirection(t *testing.T) {
	for _, c := range []struct {
		sig  string
		part int
		want string
		ok   bool
	}{
		{"{s : DSet α} : s.Nonempty ↔ s ≠ ∅", 1, "{s : DSet α} : s.Nonempty → s ≠ ∅", true},
		{"{s : DSet α} : s.Nonempty ↔ s ≠ ∅", 2, "{s : DSet α} : s ≠ ∅ → s.Nonempty", true},
		{"(h : (a ↔ b)) : p ↔ (q ↔ r)", 2, "(h : (a ↔ b)) : (q ↔ r) → p", true},
		{": a ↔ b", 1, ": a → b", true},
		{"(x : ℕ) : x = x", 1, "", false},
		{"(x : ℕ) : a ↔ b ↔ c", 1, "", false},
		{"no colon", 1, "", false},
	} {
		got, ok := iffDirection(c.sig, c.part)
		if got != c.want || ok != c.ok {
			t.Errorf("iffDirection(%q, %d) = %q, %v; want %q, %v", c.sig, c.part, got, ok, c.want, c.ok)
		}
	}
}

// countdownCtx reports cancellation from its n-th Err call on, so a test can
// cancel a run at every point where it looks.
type countdownCtx struct {
	context.Context
	left  atomic.Int64
	calls atomic.Int64
	saw   atomic.Bool
}

func (c *countdownCtx) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		c.saw.Store(true)
		return context.Canceled
	}
	return nil
}

// TestCancelAtEveryPoint cancels a run at each point where it checks its
// context: a cancelled run must return context.Canceled and leave the
// previous tables byte for byte, with no temporary files; a run that
// noticed the cancellation must never report success (it would have written
// rows whose resolution stopped half way).
func TestCancelAtEveryPoint(t *testing.T) {
	root := filepath.Join("..", "testdata", "lean")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("bundled library missing: %v", err) // committed with the repository; a skip would hide it
	}
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Sources: []Source{{Dir: root, Library: "driftlib", Revision: "r"}}, Workers: 1}
	full := &countdownCtx{Context: context.Background()}
	full.left.Store(1 << 40)
	if _, err := Run(full, ws, opts); err != nil {
		t.Fatal(err)
	}
	n := full.calls.Load()
	if n < 10 {
		t.Fatalf("only %d context checks in a full run", n)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		ents, err := os.ReadDir(ws.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == workspace.ManifestFile || strings.HasSuffix(e.Name(), ".lock") {
				continue
			}
			b, _ := os.ReadFile(ws.Path(e.Name()))
			m[e.Name()] = string(b)
		}
		return m
	}
	before := snapshot()
	ks := []int64{0, 1, n / 2, n - 3, n - 2, n - 1}
	for k := int64(2); k < n; k += max(1, n/40) {
		ks = append(ks, k)
	}
	for _, k := range ks {
		ctx := &countdownCtx{Context: context.Background()}
		ctx.left.Store(k)
		_, err := Run(ctx, ws, opts)
		switch {
		case err == nil && ctx.saw.Load():
			t.Fatalf("cancel after %d of %d checks: run saw the cancellation and still succeeded", k, n)
		case err == nil:
			continue
		case !errors.Is(err, context.Canceled):
			t.Fatalf("cancel after %d of %d checks: err %v, want context.Canceled", k, n, err)
		}
		after := snapshot()
		if len(after) != len(before) {
			t.Fatalf("cancel after %d of %d checks: files %v, want %v", k, n, keys(after), keys(before))
		}
		for name, b := range before {
			if after[name] != b {
				t.Fatalf("cancel after %d of %d checks: %s changed", k, n, name)
			}
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestOneRowPerName: a generated twin that collides with a written
// declaration yields to it, and a parent written as notation gets no invented
// projection name.
func TestOneRowPerName(t *testing.T) {
	src := `namespace N
@[to_additive] def mulBar : Nat := 1
/-- written by hand -/
def addBar : Nat := 2
structure E (A B : Type) extends A → B where
  extra : Nat
structure F (A : Type) extends Inhabited A where
  more : Nat
@[to_dual none] theorem le_bot : True := trivial
structure H (F : Type) where
  private mk ::
  inner : F → F → Nat
  add_left x y z : inner x y = z
end N
`
	rows, _, errs := ParseFile([]byte(src), "N.lean", "lib")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.Name]++
		if r.Name == "N.H.mk" && r.Kind != workspace.KindConstructor {
			t.Errorf("N.H.mk is a %s, want the constructor", r.Kind)
		}
		if r.Name == "N.addBar" && (r.GeneratedFrom != nil || r.Docstring == nil) {
			t.Errorf("N.addBar should be the written row, got %+v", r)
		}
	}
	for n, k := range seen {
		if k > 1 {
			t.Errorf("%s: %d rows", n, k)
		}
	}
	if seen["N.H.x"]+seen["N.H.y"]+seen["N.H.z"] > 0 || seen["N.H.add_left"] != 1 {
		t.Error("a field without brackets is one name, the identifiers after it its binders (add_left x y z : …)")
	}
	if seen["N.H.mk"] != 1 || seen["N.H.inner"] != 1 {
		t.Errorf("`private mk ::` is the constructor: %v", seen)
	}
	if seen["N.none"] > 0 || seen["N.le_top"] > 0 {
		t.Error("@[to_dual none] made a row (Lean names that translation like an auxiliary)")
	}
	if seen["N.E.toA"] > 0 {
		t.Error("invented projection N.E.toA for a parent whose head is a parameter")
	}
	if seen["N.F.toInhabited"] != 1 || seen["N.addBar"] != 1 || seen["N.mulBar"] != 1 {
		t.Errorf("missing rows: %v", seen)
	}
}

// TestUnknownRevision: a source outside git without a .revision file (or an
// empty one) is recorded as "unknown", never as "".
func TestUnknownRevision(t *testing.T) {
	for _, revFile := range []string{"", "  \n"} {
		src := t.TempDir()
		if err := os.MkdirAll(filepath.Join(src, "Lib"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "Lib", "A.lean"), []byte("def a : Nat := 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if revFile != "" {
			if err := os.WriteFile(filepath.Join(src, ".revision"), []byte(revFile), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ws, err := workspace.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), ws, Options{Sources: []Source{{Dir: src, Library: "lib"}}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Sources[0].RevisionUnknown() {
			t.Errorf(".revision %q: source revision %q, want %q", revFile, res.Sources[0].Revision, UnknownRevision)
		}
		decls, err := workspace.ReadTable[workspace.Declaration](ws.Path(workspace.DeclarationsFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(decls) == 0 || decls[0].Revision != UnknownRevision {
			t.Errorf(".revision %q: rows %+v, want revision %q", revFile, decls, UnknownRevision)
		}
	}
}

// TestPrivateNamesAndDuplicates: two modules may each declare a private
// name; where they do, both rows are kept under Lean's private names (and
// their module's references follow); two private anonymous instances of a
// file get names of their own. A name written twice is a real duplicate:
// one row, and the other reported.
func TestPrivateNamesAndDuplicates(t *testing.T) {
	res, rows := extractLib(t, map[string]string{
		"Lib/A.lean": "namespace Nat\nprivate def lbp : Nat := 1\ntheorem useA : lbp = 1 := rfl\nprivate def onlyA : Nat := 1\ndef dup : Nat := 1\nend Nat\n",
		"Lib/B.lean": "namespace Nat\nprivate def lbp : Nat := 2\ntheorem useB : lbp = 2 := rfl\ndef dup : Nat := 2\nend Nat\n",
		"Lib/C.lean": "class Pointed (α : Type) where\nprivate instance : Pointed Nat := ⟨⟩\nprivate instance : Pointed Nat := ⟨⟩\n",
	}, Source{Library: "Lib", Revision: "r"})
	byName := rowsByName(rows)
	for _, n := range []string{"_private.Lib.A.0.Nat.lbp", "_private.Lib.B.0.Nat.lbp", "Nat.onlyA", "Nat.dup", "instPointedNat", "instPointedNat_1"} {
		if _, ok := byName[n]; !ok {
			t.Errorf("no row %s in %v", n, slices.Sorted(maps.Keys(byName)))
		}
	}
	if deps := byName["Nat.useB"].StatementDeps; !slices.Contains(deps, "_private.Lib.B.0.Nat.lbp") {
		t.Errorf("Nat.useB's statement deps %v: want its module's private lbp", deps)
	}
	want := []Duplicate{{Name: "Nat.dup", Kind: "definition", Path: "Lib/B.lean", Line: 4, Origin: "written", KeptOrigin: "written", KeptPath: "Lib/A.lean", KeptLine: 5}}
	if !slices.Equal(res.Duplicates, want) || res.DuplicatesDropped != 1 {
		t.Errorf("duplicates %+v, want %+v", res.Duplicates, want)
	}
}
