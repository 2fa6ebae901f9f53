package informalize

import (
	"errors"
	"fmt"

	"github.com/driftkit/driftkit/internal/journal"
	"github.com/driftkit/driftkit/workspace"
)

// Entry statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Entry is one line of informal.journal.jsonl (an internal/journal file):
// the outcome of one declaration for one exact input.
type Entry struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// InputSHA256 is the reuse key and OwnInputSHA256 the declaration's own
	// part of it (see ReuseKey); entries written before the formal-input
	// rule have no OwnInputSHA256 and are not reused.
	InputSHA256       string `json:"input_sha256"`
	OwnInputSHA256    string `json:"own_input_sha256,omitempty"`
	InformalName      string `json:"informal_name,omitempty"`
	InformalStatement string `json:"informal_statement,omitempty"`
	Provider          string `json:"provider"`
	PromptVersion     string `json:"prompt_version"`
	PromptTokens      int64  `json:"prompt_tokens"`
	CompletionTokens  int64  `json:"completion_tokens"`
	Attempts          int    `json:"attempts,omitempty"`
	Error             string `json:"error,omitempty"`
	CreatedAt         string `json:"created_at"`
	// Context lists the dependency texts the prompt carried (see
	// workspace.Informal.Context).
	Context []workspace.InformalContext `json:"context,omitempty"`
}

// journalOptions decode informal.journal.jsonl strictly: an unknown field
// means a line from another tool or a newer driftkit, skipped rather than
// half-understood.
var journalOptions = journal.Options[Entry]{Strict: true, Validate: validateEntry}

func validateEntry(e *Entry) error {
	switch {
	case e.Name == "":
		return errors.New("no name")
	case !isSHA256(e.InputSHA256):
		return fmt.Errorf("input_sha256 %q is not a SHA-256", e.InputSHA256)
	case e.OwnInputSHA256 != "" && !isSHA256(e.OwnInputSHA256):
		return fmt.Errorf("own_input_sha256 %q is not a SHA-256", e.OwnInputSHA256)
	case e.Status == StatusOK && (e.InformalName == "" || e.InformalStatement == ""):
		return errors.New("ok entry without informal text")
	case e.Status != StatusOK && e.Status != StatusFailed:
		return fmt.Errorf("status %q", e.Status)
	}
	for _, c := range e.Context {
		if c.Name == "" || !isSHA256(c.InformalSHA256) {
			return fmt.Errorf("context entry %+v is not a name and a SHA-256", c)
		}
	}
	return nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
