namespace A
variable (f : Nat) in
deriving instance @[expose] C _ x, D for T f, (U),
deriving instance for
deriving instance C for
deriving instance @[ for T
instance : Foo (Bar x) := sorry
