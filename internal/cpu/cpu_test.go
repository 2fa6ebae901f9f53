package cpu

import "testing"

func TestTimeAdvancesWithWork(t *testing.T) {
	t0 := Time()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	if x == 0 || Time() <= t0 {
		t.Fatalf("CPU time did not advance: %v → %v", t0, Time())
	}
}
