package chromiumtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// ProcCPU returns the CPU time (user and system) process pid has used,
// from /proc/<pid>/stat; 0 when it cannot be read (the process is gone,
// or the system has no /proc).
func ProcCPU(pid int) time.Duration {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	return statCPU(stat)
}

// statCPU is the user and system time of a /proc/<pid>/stat line: its
// fields 14 and 15, in clock ticks of 10 ms. 0 for a line too short.
//
// NB: the command name, field 2 in parentheses, may hold spaces and
// parentheses: fields are counted after its last closing parenthesis.
func statCPU(stat []byte) time.Duration {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0
	}
	// f[11] and f[12] are fields 14 and 15: utime and stime.
	u, _ := strconv.ParseInt(string(f[11]), 10, 64)
	s, _ := strconv.ParseInt(string(f[12]), 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// ProcsWithArg returns the ids of the running processes whose command
// line holds arg (for example a browser's --user-data-dir=DIR).
func ProcsWithArg(arg string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(arg)) {
			out = append(out, pid)
		}
	}
	return out
}

// SampleCPU adds up the CPU time of a changing set of processes, those
// procs returns: it reads each one's every 50 ms and keeps its last
// reading, so that a process gone keeps what it had used when last seen.
// The function it returns stops the sampling and gives the sum.
func SampleCPU(procs func() []int) (total func() time.Duration) {
	var mu sync.Mutex
	last := map[int]time.Duration{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, pid := range procs() {
				if c := ProcCPU(pid); c > 0 {
					mu.Lock()
					last[pid] = max(last[pid], c)
					mu.Unlock()
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	return func() time.Duration {
		close(stop)
		wg.Wait()
		var t time.Duration
		for _, c := range last {
			t += c
		}
		return t
	}
}
