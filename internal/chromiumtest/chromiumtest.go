// Package chromiumtest finds the headless browser for the tests that
// need one (crawl --render, the pictures and the hostile-page tests of
// query serve): the one place that decides whether such a test runs,
// skips or fails. It also measures the browser's processes for the
// benchmarks of rendering: their CPU time, read from /proc (ProcCPU,
// SampleCPU).
package chromiumtest

import (
	"os"
	"os/exec"
	"testing"
)

// Exec is the chromium the tests run: Debian's, which .ci/run installs.
// It is render.DefaultExec too (render's tests check that they agree).
const Exec = "/usr/bin/chromium"

// Need returns when Exec can be run. Otherwise the test fails under CI
// (the CI environment variable set, as .ci/run sets it: CI installs
// chromium, so a missing one is a broken machine) and is skipped
// elsewhere, saying how to install it.
func Need(t testing.TB) {
	t.Helper()
	need(t, Exec)
}

// need is Need for the browser at exe.
func need(t testing.TB, exe string) {
	t.Helper()
	if _, err := exec.LookPath(exe); err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing; .ci/run installs it (apt-get install chromium)", exe)
		return // NB: for a testing.TB whose Fatalf returns
	}
	t.Skipf("%s is missing (apt-get install chromium); CI installs it and runs this test", exe)
}
