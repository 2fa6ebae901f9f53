package main

import "testing"

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
