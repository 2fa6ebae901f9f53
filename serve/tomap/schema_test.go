package tomap

import (
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
)

// TestRoleSchemasMatchParsers: each role's answer schema (sent with its
// requests) admits an answer its parser accepts and refuses one with an
// unknown field, so a server that constrains output to the schema can
// only produce shapes the parser reads.
func TestRoleSchemasMatchParsers(t *testing.T) {
	decomp := `{"units": [{"id": "l1", "claim": "x > 0", "variables": ["x : real"], "assumptions": [], "depends_on": [], "hints": "given"},
	{"id": "main", "claim": "x^2 > 0", "variables": ["x : real"], "assumptions": ["x > 0"], "depends_on": ["l1"], "hints": "square"}]}`
	for _, tc := range []struct {
		role        Role
		good, extra string
		parse       func(string) error
	}{
		{RoleDecomposer, decomp, `{"units": [], "notes": ""}`, func(s string) error { _, err := ParseDecomposition(s); return err }},
		{RoleRewriter, decomp, `{"units": [{"id": "l1", "claim": "c", "type": "lemma"}]}`, func(s string) error { _, err := ParseDecomposition(s); return err }},
		{RoleJudge, `{"faithful": {"score": 0.8, "critique": "ok"}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 0.5, "critique": "x"}}`,
			`{"faithful": {"score": 0.8, "critique": "ok", "why": ""}, "provable": {"score": 1, "critique": ""}, "lean_friendly": {"score": 0.5, "critique": "x"}}`,
			func(s string) error { _, err := ParseRubric(s); return err }},
		{RoleSF, `{"faithful": true, "reason": "same claim"}`, `{"faithful": true, "reason": "", "score": 1}`, func(s string) error { _, err := ParseVerdict(s); return err }},
		{RoleFormalizer, `{"lean": "lemma l2 (x : ℝ) (hx : 0 < x) :\n  0 < x ^ 2 := by\n  sorry"}`, `{"lean": "", "proof": ""}`,
			func(s string) error { _, _, err := ParseStatement(s, "l2"); return err }},
		{RoleProver, `{"proof": "exact pow_pos hx 2"}`, `{"proof": "", "lean": ""}`, func(s string) error { _, err := ParseProof(s); return err }},
		{RoleEnd2End, `{"lean": "theorem t : 1 + 1 = 2 := by norm_num"}`, `{"lean": "", "notes": ""}`, func(s string) error { _, err := ParseLeanFile(s); return err }},
	} {
		s := roleSchemas[tc.role]
		if s == nil {
			t.Errorf("%s: no schema", tc.role)
			continue
		}
		if err := tc.parse(tc.good); err != nil {
			t.Fatalf("%s: %v", tc.role, err)
		}
		if err := fakeopenai.CheckSchema(s.JSON, tc.good); err != nil {
			t.Errorf("%s: the schema %q refuses an answer the parser accepts: %v", tc.role, s.Name, err)
		}
		if fakeopenai.CheckSchema(s.JSON, tc.extra) == nil || tc.parse(tc.extra) == nil {
			t.Errorf("%s: %s admitted", tc.role, tc.extra)
		}
	}
}
