package main

import "testing"

func TestSentence(t *testing.T) {
	for _, c := range []struct {
		doc, want string
		ok        bool
	}{
		{"A version of `foo_bar'` for groups.\n\nMore text.", "A version of `foo_bar'` for groups", true},
		{"The  image of `s` under\n a map is compact. Second sentence with `t`.", "The image of `s` under a map is compact", true},
		{"Both `a` and `b` are used here today.", "", false}, // two spans
		{"A version of `x + y` for the groups.", "", false},  // not an identifier
		{"See `foo`.", "", false},                                   // too short
		{"No backquoted identifier in this one at all.", "", false}, // none
	} {
		got, ok := sentence(c.doc)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("sentence(%q) = %q, %v; want %q, %v", c.doc, got, ok, c.want, c.ok)
		}
	}
}

func TestPaste(t *testing.T) {
	s := "A version of `foo` for groups"
	if got := paste(s, "Nat.sub_one_lt'", true); got != "A version of `Nat.sub_one_lt'` for groups" {
		t.Errorf("backquoted: %q", got)
	}
	if got := paste(s, "mul_inv_cancel_left₀", false); got != "A version of mul_inv_cancel_left₀ for groups" {
		t.Errorf("bare: %q", got)
	}
	if got := paste(s, "a$1b", false); got != "A version of a$1b for groups" {
		t.Errorf("a name is pasted literally: %q", got)
	}
}
