import Porting.Basic
import Missing.Pkg

/-!
# A module that imports a package not given as a source

`frobnicate` comes from `Missing.Pkg`: the report attributes it to the
missing package.
-/

namespace Porting

theorem uses_missing (n : Nat) : frobnicate n = n := sorry

end Porting
