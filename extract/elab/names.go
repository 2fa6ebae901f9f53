// Package elab holds what the importers of elaborated exports (jixia,
// lean4export) share: Lean constant names as the workspace tables spell them,
// which constants the compiler generated (auxiliary constants are not rows:
// their dependencies are inlined into the declarations that use them), the
// typed error for a malformed record, and the Sink that writes
// declarations.parquet and modules.parquet the way `extract` does.
package elab

import (
	"strings"
)

// Normalize turns a Lean constant name into the name a row carries: a private
// name _private.Mod.Path.0.Foo.bar becomes Foo.bar (Lean's own display name),
// with private set. Names are otherwise unchanged.
func Normalize(name string) (display string, private bool) {
	if !strings.HasPrefix(name, "_private.") {
		return name, false
	}
	// _private.<module components>.<number>.<name>: the first all-digit
	// component ends the prefix.
	rest := name[len("_private."):]
	for {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			return name, false // malformed: keep as is
		}
		comp := rest[:i]
		rest = rest[i+1:]
		if isDigits(comp) {
			return rest, true
		}
	}
}

// NormalizeComponents joins the components of a name given as a list (jixia
// writes names as JSON arrays of strings and numbers) and normalizes it.
func NormalizeComponents(parts []string) (display string, private bool) {
	return Normalize(strings.Join(parts, "."))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// auxLast are last components of constants Lean generates for every
// inductive type, structure or recursive definition. No source reader sees
// them and no statement is about them, so they are not premise rows.
var auxLast = map[string]bool{
	"rec": true, "recOn": true, "casesOn": true, "below": true, "brecOn": true, "binductionOn": true,
	"ibelow": true, "noConfusion": true, "noConfusionType": true, "ctorIdx": true, "toCtorIdx": true,
	"sizeOf_spec": true, "inj": true, "injEq": true, "eq_def": true, "splitter": true, "ctorElim": true,
	"ctorElimType": true, "induct": true, "mutual_induct": true, "induct_unfolding": true, "fun_cases": true,
	"congr_simp": true, "eq_unfold": true, "mk_def": true,
}

// auxNumbered are prefixes of numbered auxiliary components: match_1,
// proof_2, eq_3, rec_1 (nested inductives), …
var auxNumbered = []string{"match_", "proof_", "eq_", "eqn_", "rec_", "below_", "brecOn_", "ibelow_",
	"binductionOn_", "omega_", "instance_", "simp_", "spec_", "fun_cases_", "lambda_"}

// IsAuxiliary reports whether a (normalized) constant name is one the
// elaborator or compiler generated rather than a declaration a person wrote
// or asked for: components starting with '_' (_aux_…, _sizeOf_1,
// _unsafe_rec, hygienic names), recursors and their relatives (rec, casesOn,
// noConfusion, below, …), matchers and equation lemmas (match_1, proof_1,
// eq_1, eq_def), injectivity lemmas (inj, injEq) and sizeOf lemmas.
func IsAuxiliary(name string) bool {
	if name == "" {
		return true
	}
	first := true
	for rest := name; rest != ""; first = false {
		var comp string
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		if comp == "" || comp[0] == '_' {
			return true
		}
		// Nat.rec, Nat.brecOn.go, Foo.match_1.eq_2: any component after
		// the first
		if !first && auxComponent(comp) {
			return true
		}
	}
	return false
}

func auxComponent(c string) bool {
	if auxLast[c] {
		return true
	}
	for _, p := range auxNumbered {
		if strings.HasPrefix(c, p) && isDigits(c[len(p):]) {
			return true
		}
	}
	return false
}

// IsInstanceName reports whether a name is the one Lean gives an anonymous
// instance (instAddNat, Foo.instBEqFoo). Exports carry no attributes, so this
// is how an importer tells instances from other definitions; instances named
// by hand without the inst prefix come out as definitions.
func IsInstanceName(name string) bool {
	last := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		last = name[i+1:]
	}
	return len(last) > 4 && strings.HasPrefix(last, "inst") && (last[4] >= 'A' && last[4] <= 'Z' || last[4] >= 0x80)
}

// Namespace returns the namespace a declaration name lives in (its prefix).
func Namespace(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return ""
}
