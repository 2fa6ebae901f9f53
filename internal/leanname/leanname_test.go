package leanname

import (
	"slices"
	"testing"
)

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"FirstOrder.Language.Ultraproduct.«structure»": "FirstOrder.Language.Ultraproduct.structure",
		"FirstOrder.Language.Ultraproduct.structure":   "FirstOrder.Language.Ultraproduct.structure",
		"Demo.«term_≋_»":                               "Demo.«term_≋_»",
		"«Nat».«add_comm»":                             "Nat.add_comm",
		"Foo.«a.b».c":                                  "Foo.«a.b».c",
		"Real.«π»":                                     "Real.π",
		"x.«1st»":                                      "x.«1st»",
		"Nat.add_comm":                                 "Nat.add_comm",
		"ENNReal.instCommSemiring":                     "ENNReal.instCommSemiring",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
		if !Equal(in, want) {
			t.Errorf("Equal(%q, %q) = false", in, want)
		}
	}
	for in, want := range map[string]string{
		"FirstOrder.Language.Ultraproduct.structure": "FirstOrder.Language.Ultraproduct.«structure»",
		"Foo.«a.b».fun": "Foo.«a.b».«fun»",
		"Nat.add_comm":  "Nat.add_comm",
	} {
		if got := Paste(in); got != want {
			t.Errorf("Paste(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Components("Foo.«a.b».c"); !slices.Equal(got, []string{"Foo", "a.b", "c"}) {
		t.Errorf("Components = %q", got)
	}
	if Equal("Nat.add_comm", "Nat.add_assoc") {
		t.Error("different names are equal")
	}
}

// FuzzCanonical: Canonical is idempotent and keeps the components.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"A.«structure»", "Demo.«term_≋_»", "Foo.«a.b».c", "«", "a..b", "«»", "x.«1st»"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Canonical(s)
		if Canonical(c) != c {
			t.Fatalf("Canonical not idempotent: %q → %q → %q", s, c, Canonical(c))
		}
		if Canonical(Paste(s)) != Canonical(s) {
			t.Fatalf("Paste changes the name: %q → %q", s, Paste(s))
		}
	})
}

// TestIdTableIsIsId: plain's table of ASCII characters answers as IsIdFirst
// and IsIdRest do, for every character.
func TestIdTableIsIsId(t *testing.T) {
	for c := rune(0); c <= 0x1ffff; c++ {
		if idFirst(c) != IsIdFirst(c) || idRest(c) != IsIdRest(c) {
			t.Fatalf("%U: idFirst %v idRest %v, IsIdFirst %v IsIdRest %v", c, idFirst(c), idRest(c), IsIdFirst(c), IsIdRest(c))
		}
	}
}
