// Package memlimit picks a Go soft memory limit that fits the container a
// program runs in: the smaller of a program's own ceiling and three
// quarters of its cgroup's memory limit, when one is set.
//
// It reads the cgroup the process belongs to from /proc/self/cgroup and
// that cgroup's limit, and its ancestors' (a limit applies to every cgroup
// below it), in cgroup v2 (memory.max under /sys/fs/cgroup, or
// /sys/fs/cgroup/unified on a hybrid system) or v1 (memory.limit_in_bytes
// under /sys/fs/cgroup/memory). Where none can be read, there is no limit.
//
// # Caveats
//
//   - The limit is read once, at start-up: a container resized while the
//     program runs keeps the old figure.
//   - The quarter left is for what the Go runtime does not count: the
//     store's memory-mapped files, C libraries, the page cache charged to
//     the cgroup. A program that maps much more should leave more.
package memlimit

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// Limit returns the Go memory limit for this process: ceiling, or three
// quarters of its cgroup's memory limit when that is smaller.
func Limit(ceiling int64) int64 { return limitIn(os.DirFS("/"), ceiling) }

func limitIn(fsys fs.FS, ceiling int64) int64 {
	if l, ok := CgroupLimit(fsys); ok && l/4*3 < ceiling {
		return l / 4 * 3
	}
	return ceiling
}

// noLimit: a figure at or above it is no limit (cgroup v1 writes the
// largest page-aligned int64, 9223372036854771712, for none).
const noLimit = 1 << 62

// CgroupLimit returns the memory limit of the cgroup of this process in
// fsys (the root file system, "/" as an fs.FS), in bytes: the smallest of
// its own and its ancestors'; false when none is set or none can be read.
func CgroupLimit(fsys fs.FS) (int64, bool) {
	b, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	best, found := int64(0), false
	note := func(v int64, ok bool) {
		if ok && (!found || v < best) {
			best, found = v, true
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			for _, root := range []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"} {
				note(walkUp(fsys, root, parts[2], "memory.max"))
			}
		case hasController(parts[1], "memory"):
			note(walkUp(fsys, "sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes"))
		}
	}
	return best, found
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// walkUp reads file in the directory of cgroup p under root and in each
// of its ancestors up to root, and returns the smallest limit found.
//
// NB: in a container the mount's root is often the container's own cgroup,
// so the process's full path is not found under it; the mount's root
// itself is read then (it is the last directory walked).
func walkUp(fsys fs.FS, root, p, file string) (int64, bool) {
	best, found := int64(0), false
	p = path.Clean("/" + p)
	for {
		if v, ok := readLimit(fsys, path.Join(root, p, file)); ok && (!found || v < best) {
			best, found = v, true
		}
		if p == "/" {
			return best, found
		}
		p = path.Dir(p)
	}
}

// readLimit reads a limit file: a number of bytes, or "max" (no limit).
func readLimit(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= noLimit {
		return 0, false // "max", or no figure
	}
	return v, true
}

// Set sets the Go runtime's soft memory limit to limit, unless
// getenv("GOMEMLIMIT") is set, in which case the runtime has already
// applied that (a person's choice wins). It returns a function that
// restores the previous limit.
func Set(getenv func(string) string, limit int64) (restore func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}
