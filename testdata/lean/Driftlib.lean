import Driftlib.Algebra.Field
import Driftlib.Algebra.Group.Basic
import Driftlib.Algebra.Group.Defs
import Driftlib.Algebra.Group.Hom
import Driftlib.Algebra.Group.Pow
import Driftlib.Algebra.Order
import Driftlib.Algebra.Ring
import Driftlib.Analysis.Sequence
import Driftlib.Data.Finset.Basic
import Driftlib.Data.Finset.Sum
import Driftlib.Data.Fintype
import Driftlib.Data.List.Basic
import Driftlib.Data.List.Perm
import Driftlib.Data.Nat.Basic
import Driftlib.Data.Nat.Dvd
import Driftlib.Data.Nat.Factorial
import Driftlib.Data.Nat.GCD
import Driftlib.Data.Nat.Parity
import Driftlib.Data.Nat.Prime
import Driftlib.Data.Set.Basic
import Driftlib.Data.Set.Image
import Driftlib.Data.Tree
import Driftlib.GroupTheory.Coset
import Driftlib.GroupTheory.Cyclic
import Driftlib.GroupTheory.Order
import Driftlib.GroupTheory.Subgroup
import Driftlib.Logic.Basic
import Driftlib.Logic.Function
import Driftlib.Logic.Relation
import Driftlib.NumberTheory.Divisors
import Driftlib.NumberTheory.Fermat
import Driftlib.NumberTheory.ModEq
import Driftlib.Order.Bounds
import Driftlib.Order.Defs
import Driftlib.Order.Lattice
import Driftlib.Order.Monotone
import Driftlib.Topology.Basic
import Driftlib.Topology.Compact

/-!
# Driftlib

A small, self-contained Lean 4 library written as test data for driftkit.
It depends only on Lean core. Importing this file imports every module.
-/
