// Package countflag is the one way a command-line count whose zero is
// meaningful ("--max-retries 0": no retries) reaches an options struct
// whose zero means "the default". Library options keep that convention
// (0: default, negative: none, so that a struct literal that leaves a
// field out gets the default); a count flag stores a given 0 as None, so
// zero on the command line means zero.
package countflag

import (
	"flag"
	"fmt"
	"strconv"
)

// None is what a flag stores for 0: the options' "none" value.
const None = -1

type count struct{ p *int }

// Var defines an integer flag on fs that writes *p: its default def, any
// n ≥ 1 as n, 0 (or a negative count) as None.
func Var(fs *flag.FlagSet, p *int, name string, def int, usage string) {
	*p = def
	fs.Var(count{p}, name, usage)
}

func (c count) String() string {
	if c.p == nil {
		return "0"
	}
	return strconv.Itoa(max(*c.p, 0))
}

func (c count) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("want a whole number, got %q", s)
	case n <= 0: // a negative count is none too (the options' own convention)
		*c.p = None
	default:
		*c.p = n
	}
	return nil
}

// Value is a count read back for messages and records: None is 0.
func Value(n int) int { return max(n, 0) }
