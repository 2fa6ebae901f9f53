package extract

import (
	"maps"
	"slices"
	"testing"
)

// TestTwinNamespaces: a to_additive twin's namespace is the source's with
// its longest prefix that has a translation replaced by it (Mathlib's
// Translate.targetName, Name.mapPrefix findTranslationName?); a namespace
// that is a declaration without a translation stays; one the sources do not
// declare is guessed word by word.
func TestTwinNamespaces(t *testing.T) {
	src := `
@[to_additive AddOreLocalization]
structure OreLocalization where
  x : Nat

namespace OreLocalization
@[to_additive]
theorem mul_one : True := trivial
@[to_additive add_thing]
theorem mul_thing : True := trivial
end OreLocalization

def MulFoo : Nat := 0
namespace MulFoo
@[to_additive]
theorem mul_comm : True := trivial
end MulFoo

namespace Monoid
@[to_additive]
theorem mul_assoc : True := trivial
end Monoid

@[to_additive]
def MulBar : Nat := 0
attribute [to_additive] MulBar
structure Grp1 where
  x : Nat
structure AddGrp1 where
  x : Nat
attribute [to_additive AddGrp1] Grp1
namespace Grp1
@[to_additive]
theorem one_mem : True := trivial
end Grp1

def AddGrp2 : Nat := 0
@[to_additive existing AddGrp2]
def Grp2 : Nat := 0
namespace Grp2
@[to_additive]
theorem one_mem : True := trivial
end Grp2

structure UpperSet where
  x : Nat
@[to_dual]
structure LowerSet where
  x : Nat
namespace UpperSet
@[to_dual]
theorem le_top : True := trivial
end UpperSet

namespace MulBar
theorem one_le : True := trivial -- twin AddBar.nonneg (zero_le → nonneg)
attribute [to_additive] one_le
end MulBar
`
	m := parse(t, src)
	for _, n := range []string{"AddOreLocalization", "AddOreLocalization.add_zero", "AddOreLocalization.add_thing",
		"MulFoo.add_comm", "AddMonoid.add_assoc", "AddBar", "AddBar.nonneg",
		"AddGrp1.zero_mem", "AddGrp2.zero_mem", "LowerSet.ge_bot"} {
		if _, ok := m[n]; !ok {
			t.Errorf("no row %s (rows %v)", n, slices.Sorted(maps.Keys(m)))
		}
	}
	for _, n := range []string{"OreLocalization.add_zero", "AddFoo.add_comm", "Grp1.zero_mem", "Grp2.zero_mem", "UpperSet.ge_bot"} {
		if _, ok := m[n]; ok {
			t.Errorf("row %s: the namespace is not translated as Mathlib does", n)
		}
	}
}
