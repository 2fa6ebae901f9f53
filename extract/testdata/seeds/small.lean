namespace Foo
def Bar := Nat
theorem baz (x : Bar) (h : x = x) : (x : Bar) = x ∧ Bar = Bar := rfl
end Foo
