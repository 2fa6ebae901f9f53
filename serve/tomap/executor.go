package tomap

import (
	"context"
	"fmt"
	"strings"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
)

// UnitOutcome is what the executor made of one unit.
type UnitOutcome struct {
	ID string `json:"id"`
	// Statement is the unit's Lean statement with `:= by sorry` (the last
	// one that typechecked, or the last well-formed one when verification
	// is skipped); "" if none.
	Statement string `json:"statement,omitempty"`
	// Code is the statement with the Prover's proof, once Lean accepted it
	// with no sorry (or the last well-formed one when verification is
	// skipped).
	Code string `json:"code,omitempty"`
	// Formalized and Proved are Lean's verdicts; both false when
	// verification is skipped.
	Formalized bool     `json:"formalized"`
	Proved     bool     `json:"proved"`
	Formalize  Attempts `json:"formalize"`
	Prove      Attempts `json:"prove"`
}

// Execution is the executor's trace for one committed decomposition.
type Execution struct {
	Decomposition string        `json:"decomposition"` // hash
	Units         []UnitOutcome `json:"units"`
	// File is the assembled Lean file (header included).
	File string `json:"file"`
	// Check is Lean's verdict on File (nil when skipped or nothing was
	// formalized).
	Check *lean.Result `json:"check,omitempty"`
}

// Limits on Lean feedback, so a cascade of errors does not flood the prompt.
const (
	maxFeedbackMessages = 8
	maxFeedbackChars    = 600
)

// axiomOf turns a formalized unit into the declaration later units are
// checked against: its signature as an axiom, so the context elaborates
// without re-checking proofs and without `sorry` warnings that would hide
// whether the unit under check is complete.
func axiomOf(u UnitOutcome) string {
	sig := strings.TrimSuffix(strings.TrimPrefix(u.Statement, "lemma "+u.ID+" "), " := by sorry")
	return "axiom " + u.ID + " " + sig
}

// context renders the earlier formalized units for a check (as axioms) and
// for a prompt (as statements).
func contextOf(units []UnitOutcome) (check, prompt string) {
	var c, p []string
	for _, u := range units {
		if u.Statement == "" {
			continue
		}
		c = append(c, axiomOf(u))
		p = append(p, u.Statement)
	}
	return strings.Join(c, "\n\n"), strings.Join(p, "\n\n")
}

// withContext appends code to the check context; it returns the text and
// the 1-based line of code's first line in it.
func withContext(ctxText, code string) (string, int) {
	if ctxText == "" {
		return code, 1
	}
	return ctxText + "\n\n" + code, strings.Count(ctxText, "\n") + 3
}

// feedback renders Lean's verdict for the model: the error messages (and
// for a proof, the sorry warnings), with lines relative to the model's own
// code.
func feedback(res lean.Result, codeLine int, wantComplete bool) string {
	if res.Error != "" {
		return "Lean could not check the code: " + clip(res.Error, maxFeedbackChars)
	}
	base := res.CodeLine0
	if base < 1 {
		base = 1
	}
	var lines []string
	n := 0
	for _, m := range res.Messages {
		if m.Severity != "error" && !(wantComplete && strings.Contains(m.Data, "sorry")) {
			continue
		}
		n++
		if n > maxFeedbackMessages {
			continue
		}
		l := m.Pos.Line - (base - 1) - (codeLine - 1)
		where := fmt.Sprintf("line %d, column %d", l, m.Pos.Column)
		if l < 1 {
			where = "in the earlier units or header"
		}
		lines = append(lines, fmt.Sprintf("- %s: %s: %s", where, m.Severity, clip(strings.TrimSpace(m.Data), maxFeedbackChars)))
	}
	if n > maxFeedbackMessages {
		lines = append(lines, fmt.Sprintf("- … and %d more", n-maxFeedbackMessages))
	}
	if len(lines) == 0 {
		if wantComplete && !res.Complete {
			return "- the proof is incomplete: Lean reports a `sorry`"
		}
		return "- Lean rejected the code without an error message"
	}
	return strings.Join(lines, "\n")
}

type unitData struct {
	problemData
	Header, Context, Statement string
	Unit                       Unit
	Last                       bool // the theorem's unit
}

// execute formalizes and proves the units of d in order, then assembles and
// checks the file.
func (s *session) execute(ctx context.Context, d Decomposition) (*Execution, error) {
	ex := &Execution{Decomposition: d.Hash()}
	header := s.r.header
	for i, u := range d.Units {
		uo := UnitOutcome{ID: u.ID}
		checkCtx, promptCtx := contextOf(ex.Units)
		data := unitData{problemData: s.problemData(), Header: header, Context: promptCtx, Unit: u, Last: i == len(d.Units)-1}
		if !data.Last {
			data.FormalStatement = "" // only the theorem's unit must match it
		}
		if err := s.formalize(ctx, ex.Decomposition, &uo, data, checkCtx); err != nil {
			return ex, err
		}
		if uo.Statement != "" {
			data.Statement = uo.Statement
			if err := s.prove(ctx, ex.Decomposition, &uo, data, checkCtx); err != nil {
				return ex, err
			}
		}
		ex.Units = append(ex.Units, uo)
	}
	ex.File = Assemble(header, d, ex.Units)
	if s.verified() && anyStatement(ex.Units) {
		res, err := s.check(ctx, "exec/"+ex.Decomposition+"/file", lean.Snippet{ID: s.p.Key, Header: header, Code: body(ex.File, header)})
		if err != nil {
			return ex, err
		}
		ex.Check = &res
	}
	return ex, nil
}

func anyStatement(us []UnitOutcome) bool {
	for _, u := range us {
		if u.Statement != "" {
			return true
		}
	}
	return false
}

// body is the assembled file without its header.
func body(file, header string) string {
	return strings.TrimSpace(strings.TrimPrefix(file, header))
}

// leanConversation is one Lean-checked conversation of an agent: the
// Formalizer stating a unit, the Prover proving it, the end-to-end
// baseline writing the whole file.
type leanConversation struct {
	role    Role
	agent   *Agent
	step    string // journal prefix: <step>/a<n>, <step>/a<n>/lean
	retries int    // answers after the first
	schema  string // the answer format the repair prompt restates
	what    string // what Lean's refusal means ("the proof is not accepted")
	id      string // the Lean snippet's id
	// checkCtx is the earlier units' code the answer is checked after (""
	// none); Lean's error lines are shown relative to the answer.
	checkCtx string
	// complete: Lean must also find no sorry.
	complete bool
	// parse turns an answer into the code to check (an error: the answer
	// is malformed).
	parse func(content string) (string, error)
}

// converse runs c from msgs: an answer that does not parse is answered, in
// the same conversation, with the format repair prompt, one that Lean
// refuses with Lean's errors, up to 1+c.retries answers, each recorded in
// at. It returns the last code that parsed, the last Lean result, and
// whether an answer was accepted (without a Lean backend: the first that
// parsed). err is for failed calls only.
func (s *session) converse(ctx context.Context, c leanConversation, msgs []llm.Message, at *Attempts) (code string, res *lean.Result, ok bool, err error) {
	pr := s.r.prompts
	for a := 1; a <= 1+c.retries; a++ {
		at.Count = a
		content, err := s.chat(ctx, c.role, c.agent, fmt.Sprintf("%s/a%d", c.step, a), msgs, a)
		if err != nil {
			return code, res, false, err
		}
		parsed, perr := c.parse(content)
		if perr != nil {
			at.reject(perr)
			msgs = append(msgs, llm.Message{Role: "assistant", Content: content},
				llm.Message{Role: "user", Content: pr.render("repair", map[string]string{"Problem": perr.Error(), "Schema": c.schema})})
			continue
		}
		code = parsed
		if !s.verified() {
			return code, nil, true, nil
		}
		text, line := withContext(c.checkCtx, code)
		r, err := s.check(ctx, fmt.Sprintf("%s/a%d/lean", c.step, a), lean.Snippet{ID: c.id, Header: s.r.header, Code: text})
		if err != nil {
			return code, res, false, err
		}
		res = &r
		if r.Pass && (r.Complete || !c.complete) {
			return code, res, true, nil
		}
		fb := feedback(r, line, c.complete)
		at.reject(fmt.Errorf("lean: %s", fb))
		msgs = append(msgs, llm.Message{Role: "assistant", Content: content},
			llm.Message{Role: "user", Content: pr.render("lean_errors", map[string]string{"What": c.what, "Errors": fb})})
	}
	return code, res, false, nil
}

// formalize runs the Formalizer conversation for one unit: a well-formed
// statement must typecheck in the context of the earlier units, up to
// 1+FormalizerRetries answers.
func (s *session) formalize(ctx context.Context, dh string, uo *UnitOutcome, data unitData, checkCtx string) error {
	pr := s.r.prompts
	msgs := []llm.Message{{Role: "system", Content: pr.System(RoleFormalizer)}, {Role: "user", Content: pr.render("formalize", data)}}
	stmt, _, ok, err := s.converse(ctx, leanConversation{role: RoleFormalizer, agent: s.r.cfg.Agents.Formalizer,
		step: "exec/" + dh + "/" + uo.ID + "/formalize", retries: s.r.cfg.FormalizerRetries, schema: LeanSchema,
		what: "the statement does not typecheck", id: s.p.Key + "/" + uo.ID, checkCtx: checkCtx,
		parse: func(content string) (string, error) {
			stmt, _, err := ParseStatement(content, uo.ID)
			return stmt, err
		}}, msgs, &uo.Formalize)
	if ok {
		uo.Statement, uo.Formalized = stmt, s.verified()
	}
	return err
}

// prove runs the Prover conversation for one formalized unit: the proof
// replaces `sorry` and must make Lean accept the lemma with no sorry, up to
// 1+ProverRetries answers.
func (s *session) prove(ctx context.Context, dh string, uo *UnitOutcome, data unitData, checkCtx string) error {
	pr := s.r.prompts
	msgs := []llm.Message{{Role: "system", Content: pr.System(RoleProver)}, {Role: "user", Content: pr.render("prove", data)}}
	code, _, ok, err := s.converse(ctx, leanConversation{role: RoleProver, agent: s.r.cfg.Agents.Prover,
		step: "exec/" + dh + "/" + uo.ID + "/prove", retries: s.r.cfg.ProverRetries, schema: ProofSchema,
		what: "the proof is not accepted", id: s.p.Key + "/" + uo.ID, checkCtx: checkCtx, complete: true,
		parse: func(content string) (string, error) {
			tactics, err := ParseProof(content)
			if err != nil {
				return "", err
			}
			return withProof(uo.Statement, tactics), nil
		}}, msgs, &uo.Prove)
	if ok {
		uo.Code, uo.Proved = code, s.verified()
	}
	return err
}

// Assemble writes the Lean file of an execution: the fixed header, then
// every unit in order, each under a comment with its informal claim — the
// proved code when there is one, else the statement with sorry, else a
// comment saying the unit was not formalized.
func Assemble(header string, d Decomposition, units []UnitOutcome) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(header))
	b.WriteString("\n")
	byID := map[string]UnitOutcome{}
	for _, u := range units {
		byID[u.ID] = u
	}
	for _, u := range d.Units {
		b.WriteString("\n-- ")
		b.WriteString(u.ID)
		b.WriteString(": ")
		b.WriteString(oneLine(u.Claim, 160))
		b.WriteString("\n")
		uo := byID[u.ID]
		switch {
		case uo.Code != "":
			b.WriteString(uo.Code)
		case uo.Statement != "":
			b.WriteString(uo.Statement)
		default:
			b.WriteString("-- (not formalized)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// oneLine makes text safe for a line comment.
func oneLine(s string, n int) string {
	return clip(strings.Join(strings.Fields(s), " "), n)
}
