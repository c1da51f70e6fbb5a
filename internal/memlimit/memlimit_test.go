package memlimit

import (
	"os"
	"testing"
	"testing/fstest"
)

const ceiling = 448 << 20

func TestLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64 // of Limit(448 MiB)
	}{
		{"no cgroup file", nil, ceiling},
		{"v2, no limit", map[string]string{
			"proc/self/cgroup": "0::/user.slice/crawl.scope\n",
			"sys/fs/cgroup/user.slice/crawl.scope/memory.max": "max\n",
		}, ceiling},
		{"v2, 256 MiB", map[string]string{
			"proc/self/cgroup": "0::/user.slice/crawl.scope\n",
			"sys/fs/cgroup/user.slice/crawl.scope/memory.max": "268435456\n",
		}, 192 << 20},
		{"v2, a parent's limit", map[string]string{
			"proc/self/cgroup": "0::/user.slice/crawl.scope\n",
			"sys/fs/cgroup/user.slice/crawl.scope/memory.max": "max\n",
			"sys/fs/cgroup/user.slice/memory.max":             "536870912\n",
		}, 384 << 20}, // 3/4 of 512 MiB
		{"v2, container root", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "402653184\n",
		}, 288 << 20},
		{"v2, path not under the mount (container)", map[string]string{
			"proc/self/cgroup":         "0::/../../kubepods/pod1/c1\n",
			"sys/fs/cgroup/memory.max": "402653184\n",
		}, 288 << 20},
		{"v2, 8 GiB: the ceiling", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "8589934592\n",
		}, ceiling},
		{"v1, no limit", map[string]string{
			"proc/self/cgroup": "4:memory:/process_api/e29a\n0::/\n",
			"sys/fs/cgroup/memory/process_api/e29a/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                  "9223372036854771712\n",
		}, ceiling},
		{"v1, 400 MiB", map[string]string{
			"proc/self/cgroup": "11:cpuset:/\n4:memory:/docker/abc\n0::/\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "419430400\n",
		}, 300 << 20},
		{"v1, controllers listed together", map[string]string{
			"proc/self/cgroup":                           "4:cpu,memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "419430400\n",
		}, 300 << 20},
		{"hybrid: v2 unified without memory, v1 with it", map[string]string{
			"proc/self/cgroup":                             "4:memory:/x\n0::/x\n",
			"sys/fs/cgroup/unified/x/cgroup.procs":         "1\n",
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": "134217728\n",
		}, 96 << 20},
		{"garbage", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "lots\n",
		}, ceiling},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tc.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			if got := limitIn(fsys, ceiling); got != tc.want {
				t.Errorf("Limit(448 MiB) = %d MiB, want %d MiB", got>>20, tc.want>>20)
			}
		})
	}
}

// TestThisMachine reads the real cgroup files: whatever they say, the
// limit is positive and at most the ceiling.
func TestThisMachine(t *testing.T) {
	got := Limit(ceiling)
	l, ok := CgroupLimit(os.DirFS("/"))
	t.Logf("cgroup limit %d (set: %v); Limit(448 MiB) = %d MiB", l, ok, got>>20)
	if got <= 0 || got > ceiling {
		t.Errorf("Limit(448 MiB) = %d", got)
	}
}
