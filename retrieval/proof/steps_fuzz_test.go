package proof

import (
	"strings"
	"testing"
)

// FuzzSteps: any declaration code (the library's source) splits into steps
// without panicking; every step is text of the proof and its premise part
// text of the step.
func FuzzSteps(f *testing.F) {
	f.Add("theorem t (a : ℕ) : a = a := by\n  have h : a = a := rfl\n  exact h", "(a : ℕ) : a = a")
	f.Add("theorem t : P := by\n  suffices h : Q by exact h.1\n  show Q from q\n  · simp [foo] -- bar\n    rfl\ntermination_by x", ": P")
	f.Add("lemma x : ⟨a, b⟩ = c := by\n  obtain ⟨x, hx⟩ : ∃ x, p x := ⟨0, trivial⟩\n  rcases h with ⟨⟩", ": ⟨a, b⟩ = c")
	f.Add("theorem t : True := trivial", ": True")
	f.Add("theorem t : A := by have : := \n  have h (x : α := 1) : B x := by\n", ": A")
	f.Fuzz(func(t *testing.T, code, sig string) {
		proof, ok := ProofOf(code, sig)
		if !ok {
			return
		}
		for _, st := range Steps(proof) {
			first, _, _ := strings.Cut(st.Text, "\n")
			if !strings.Contains(proof, first) || !strings.Contains(st.Text, strings.TrimSpace(st.Proof)) {
				t.Errorf("step %+v is not text of the proof %q", st, proof)
			}
			named(st.Proof, []string{"Nat.succ_le", "foo", "h.trans"})
		}
	})
}
