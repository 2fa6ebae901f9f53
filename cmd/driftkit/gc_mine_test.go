package main

import "testing"

// mine collects less often than the default (#29: GOGC 200 took a fifth off
// its CPU on Mathlib); the setting is the binary's (tuneGC), not a test's.
func TestMineGCSetting(t *testing.T) {
	c := commands["mine"]
	if c == nil || c.gc == nil {
		t.Fatal("mine has no GC setting")
	}
	if c.gc.percent != 200 || c.gc.limit != 1200<<20 {
		t.Fatalf("mine's GC setting %+v, want GOGC 200 and a 1.2 GB limit", *c.gc)
	}
}
