@[simp
theorem x (a : (b : c) : d := ⟨⟨
end end end
namespace
structure where | |
alias ⟨ := 
instance (priority := ) : where
