package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestTwinsOfAnonymousInstancesAreGenerated: the to_additive twin of an
// anonymous instance (AddUnits.instOrd from Units.instOrd) has a generated
// name; counted as explicitly named, it removed every reference ending in
// instOrd (OrderDual.instOrd) from the score, so the score's denominator
// moved with the names extract gave (Mathlib v4.29.0, d22483f: 84 -> 83).
func TestTwinsOfAnonymousInstancesAreGenerated(t *testing.T) {
	ws, src := t.TempDir(), t.TempDir()
	units := "Units.instOrd"
	rows := []workspace.Declaration{
		{Name: "OrderDual.instOrd", Kind: "instance", Keyword: "instance", Code: "instance (α : Type*) [h : Ord α] : Ord αᵒᵈ := ⟨⟩"},
		{Name: units, Kind: "instance", Keyword: "instance", Code: "@[to_additive]\ninstance [Monoid α] [Ord α] : Ord αˣ where"},
		{Name: "AddUnits.instOrd", Kind: "instance", Keyword: "instance", Code: "@[to_additive]\ninstance [Monoid α] [Ord α] : Ord αˣ where", GeneratedFrom: &units},
	}
	if err := workspace.WriteTable(filepath.Join(ws, workspace.DeclarationsFile), rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "A.lean"), []byte("theorem t : OrderDual.instOrd αᵒᵈ = H := rfl\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := run(ws, src)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Code.References != 1 || rep.Code.Found != 1 {
		t.Errorf("code references %d, found %d; want 1, 1 (OrderDual.instOrd)", rep.Code.References, rep.Code.Found)
	}
}

// TestTwinsOfNamedInstancesAreGenerated: the to_additive twin of a named
// instance has a name to_additive made (Mathlib's
// Measure.prod.instIsAddHaarMeasure from prod.instIsHaarMeasure), so
// references to it count; a twin the attribute names is explicit.
func TestTwinsOfNamedInstancesAreGenerated(t *testing.T) {
	ws, src := t.TempDir(), t.TempDir()
	haar, foo := "Measure.prod.instIsHaarMeasure", "instFoo"
	rows := []workspace.Declaration{
		{Name: haar, Kind: "instance", Keyword: "instance", Code: "@[to_additive]\ninstance prod.instIsHaarMeasure [IsHaarMeasure μ] : IsHaarMeasure (μ.prod ν) := ⟨⟩"},
		{Name: "Measure.prod.instIsAddHaarMeasure", Kind: "instance", Keyword: "instance", Code: "@[to_additive]\ninstance prod.instIsHaarMeasure [IsHaarMeasure μ] : IsHaarMeasure (μ.prod ν) := ⟨⟩", GeneratedFrom: &haar},
		{Name: foo, Kind: "instance", Keyword: "instance", Code: "@[to_additive instAddFoo]\ninstance instFoo : Foo := ⟨⟩"},
		{Name: "instAddFoo", Kind: "instance", Keyword: "instance", Code: "@[to_additive instAddFoo]\ninstance instFoo : Foo := ⟨⟩", GeneratedFrom: &foo},
	}
	if err := workspace.WriteTable(filepath.Join(ws, workspace.DeclarationsFile), rows); err != nil {
		t.Fatal(err)
	}
	text := "example := Measure.prod.instIsAddHaarMeasure μ ν\nexample := instAddFoo\n"
	if err := os.WriteFile(filepath.Join(src, "A.lean"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := run(ws, src)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Code.References != 1 || rep.Code.Found != 1 {
		t.Errorf("code references %d, found %d; want 1, 1 (Measure.prod.instIsAddHaarMeasure; instAddFoo is named)", rep.Code.References, rep.Code.Found)
	}
}

// TestCollectDeclaredPrefix: a name a declaration declares is no reference
// to a generated instance, also when its inst… component is a namespace
// (Mathlib's Data/Multiset/Fintype, in namespace Multiset).
func TestCollectDeclaredPrefix(t *testing.T) {
	src := "namespace Multiset\n" +
		"instance instCoeSortMultisetType.instCoeOutToType : CoeOut m α :=\n  ⟨fun x ↦ x.1⟩\n" +
		"example : Epi f := instEpiAppOfFunctor f X\n"
	code, docs := map[string]bool{}, map[string]bool{}
	collect(src, map[string]bool{}, code, docs)
	if code["instCoeSortMultisetType"] {
		t.Error("instCoeSortMultisetType counted: it is the namespace of a declared name")
	}
	if !code["instEpiAppOfFunctor"] {
		t.Errorf("instEpiAppOfFunctor not counted: %v", code)
	}
}
