package workspace

import (
	"fmt"
	"os"
)

// MissingError says a stage's input file does not exist: the stage that
// writes it has not run in this workspace. It names the file and what it
// should hold; which command makes it is the caller's to say (the driftkit
// command adds that advice, a server answers with its own words). It wraps
// os.ErrNotExist.
type MissingError struct {
	Path string // the absent file
	What string // what it would hold: "declarations", "pairs"
}

func (e *MissingError) Error() string { return fmt.Sprintf("%s: no %s", e.Path, e.What) }

func (e *MissingError) Unwrap() error { return os.ErrNotExist }

// Missing returns a *MissingError for the workspace file rel (such as
// DeclarationsFile), whose rows are what.
func (w *Workspace) Missing(rel, what string) error {
	return &MissingError{Path: w.Path(rel), What: what}
}
