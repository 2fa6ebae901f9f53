package main

import (
	"fmt"
	"slices"
	"testing"
)

func TestPlainWords(t *testing.T) {
	got := plainWords("If `p ∣ a * b` then $p \\mid a$: p divides a. Über")
	want := []string{"then", "divides"}
	if !slices.Equal(got, want) {
		t.Errorf("plainWords = %q, want %q", got, want)
	}
}

// TestTable: a word paired with a rare token far above chance is mapped
// to it; a token every name has (no lift) and a pair below the count are
// not; a word is never mapped to its own token.
func TestTable(t *testing.T) {
	tb := newTable()
	for i := range 30 {
		tb.add("the prime divides the product", fmt.Sprintf("Nat.Prime.dvd_mul_%d", i), false)
	}
	for i := range 200 {
		tb.add("something else entirely", fmt.Sprintf("Nat.foo_%d", i), false)
	}
	for i := range 3 {
		tb.add("rarely seen words", fmt.Sprintf("Nat.rare_%d", i), false)
	}
	got := tb.table(20, 8, 0.2, 4, 2)
	if !slices.Contains(got["divides"], "dvd") {
		t.Errorf("divides → %q, want dvd", got["divides"])
	}
	if slices.Contains(got["divides"], "nat") {
		t.Errorf("divides → %q: nat is in every name (lift 1)", got["divides"])
	}
	if slices.Contains(got["prime"], "prime") {
		t.Errorf("prime → %q: a word is not mapped to its own token", got["prime"])
	}
	if _, ok := got["rarely"]; ok {
		t.Errorf("rarely → %q: below the counts", got["rarely"])
	}
}
