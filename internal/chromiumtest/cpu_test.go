package chromiumtest

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestStatCPU reads utime and stime (fields 14 and 15, 10 ms ticks) after
// the command name, whatever that name holds.
func TestStatCPU(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       time.Duration
	}{
		{"plain", "42 (chromium) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 100 1000 10", 100 * time.Millisecond},
		{"name with spaces and parentheses", "42 (a) b (c) R 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10", 3 * time.Second},
		{"too short", "42 (chromium) S 1 42", 0},
		{"no name", "42 chromium S", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := statCPU([]byte(tc.stat)); got != tc.want {
				t.Errorf("statCPU(%q) = %v, want %v", tc.stat, got, tc.want)
			}
		})
	}
}

// TestSampleCPU samples this process, found by its command line: the sum
// is at least what it had used before sampling began.
func TestSampleCPU(t *testing.T) {
	self := os.Getpid()
	if !slices.Contains(ProcsWithArg(os.Args[0]), self) {
		t.Fatalf("ProcsWithArg(%q) does not list this process (%d)", os.Args[0], self)
	}
	burn := func(until time.Duration) {
		for ProcCPU(self) < until {
			// burn CPU until the kernel has counted that much
		}
	}
	deadline := time.AfterFunc(time.Minute, func() { panic("ProcCPU of this process never grew: is /proc/PID/stat read?") })
	defer deadline.Stop()
	burn(20 * time.Millisecond)
	before := ProcCPU(self)
	total := SampleCPU(func() []int { return []int{self} })
	burn(before + 20*time.Millisecond)
	if got := total(); got < before {
		t.Errorf("SampleCPU of this process = %v, want at least %v (its CPU before sampling)", got, before)
	}
	if got := ProcCPU(-1); got != 0 {
		t.Errorf("ProcCPU(-1) = %v, want 0", got)
	}
}
