package main

import (
	"slices"
	"testing"
)

func TestBulletItems(t *testing.T) {
	d := &decls{module: map[string]string{"Nat.Prime.dvd_mul": "Mathlib.A", "zorn_le": "Mathlib.B", "Foo.bar": "Mathlib.B", "X.bar": "Mathlib.C"},
		byModule: map[string][]string{"Mathlib.B": {"zorn_le", "Foo.bar"}}, suffix: map[string][]string{"bar": {"Foo.bar", "X.bar"}, "dvd_mul": {"Nat.Prime.dvd_mul"}}}
	doc := "# Title\n\n## Main results\n\n* `Nat.Prime.dvd_mul`: a prime `p` divides `m * n`\n  iff it divides one of them.\n" +
		"- `zorn_le`: **Zorn's lemma** for partial orders where chains are bounded above\n" +
		"- `bar`: a thing whose name is ambiguous outside its module\n" +
		"* `Nat.Prime.dvd_mul` : the statement $p \\mid ab$ for a prime written in LaTeX\n" +
		"* `zorn_le`: too short\n"
	bs := bullets(doc)
	if len(bs) != 5 || bs[0] != "`Nat.Prime.dvd_mul`: a prime `p` divides `m * n` iff it divides one of them." {
		t.Fatalf("bullets %q", bs)
	}
	var got []item
	for i, b := range bs {
		got = append(got, bulletItems(b, "Mathlib.B", i, d)...)
	}
	var styles, queries []string
	for _, it := range got {
		styles = append(styles, it.Style)
		queries = append(queries, it.Query)
		if it.Half != "tune" && it.Half != "held-out" {
			t.Errorf("%+v: no half", it)
		}
	}
	want := []string{"lean", "nickname", "natural", "natural", "latex"}
	if !slices.Equal(styles, want) {
		t.Fatalf("styles %v, want %v (queries %q)", styles, want, queries)
	}
	if got[1].Query != "Zorn's lemma" || got[1].Gold[0] != "zorn_le" || got[3].Gold[0] != "Foo.bar" {
		t.Errorf("items %+v", got)
	}
	// Outside Mathlib.B, "bar" is ambiguous and its bullet is dropped.
	if its := bulletItems(bs[2], "Mathlib.Z", 2, d); len(its) != 0 {
		t.Errorf("ambiguous name kept: %+v", its)
	}
	// A description that writes its gold's name is dropped.
	if its := bulletItems("`zorn_le`: this is zorn_le stated for preorders and chains", "Mathlib.B", 0, d); len(its) != 0 {
		t.Errorf("self-naming description kept: %+v", its)
	}
}

func TestResembles(t *testing.T) {
	old := []map[string]bool{wordSet("A prime divides a product iff it divides one of the factors.")}
	if !resembles("a prime divides a product iff it divides one of its factors", old) {
		t.Error("a rewording of an old description counted as new")
	}
	if resembles("the product of two units is a unit", old) {
		t.Error("a new description counted as old")
	}
}
