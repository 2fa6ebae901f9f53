package countflag

import (
	"flag"
	"io"
	"testing"
)

func TestZeroIsNone(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
		bad  bool
	}{{nil, 6, false}, {[]string{"-n", "0"}, None, false}, {[]string{"-n", "3"}, 3, false}, {[]string{"-n", "-1"}, None, false}, {[]string{"-n", "x"}, 0, true}} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var n int
		Var(fs, &n, "n", 6, "count")
		err := fs.Parse(c.args)
		if (err != nil) != c.bad || !c.bad && n != c.want {
			t.Errorf("%v: n %d, err %v", c.args, n, err)
		}
		if fs.Lookup("n").DefValue != "6" {
			t.Errorf("default shown as %q", fs.Lookup("n").DefValue)
		}
	}
	if Value(None) != 0 || Value(4) != 4 {
		t.Error("Value")
	}
}
