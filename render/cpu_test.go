package render

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// procCPU returns the CPU time (user and system) process pid has used,
// from /proc/<pid>/stat (clock ticks of 10 ms); 0 when it cannot be read.
func procCPU(pid int) time.Duration {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
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

// cpuSampler adds up the CPU time of a changing set of processes: it
// samples each every 50 ms and keeps the last reading, so that a process
// gone keeps what it had used when last seen.
type cpuSampler struct {
	mu   sync.Mutex
	last map[int]time.Duration
	stop chan struct{}
	done sync.WaitGroup
}

// sampleCPU starts sampling the processes procs returns.
func sampleCPU(procs func() []int) *cpuSampler {
	s := &cpuSampler{last: map[int]time.Duration{}, stop: make(chan struct{})}
	s.done.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, pid := range procs() {
				if c := procCPU(pid); c > 0 {
					s.mu.Lock()
					s.last[pid] = max(s.last[pid], c)
					s.mu.Unlock()
				}
			}
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	})
	return s
}

// total stops the sampling and returns the CPU time seen.
func (s *cpuSampler) total() time.Duration {
	close(s.stop)
	s.done.Wait()
	var t time.Duration
	for _, c := range s.last {
		t += c
	}
	return t
}
