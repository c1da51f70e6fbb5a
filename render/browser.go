package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// deadProxy is the proxy the browser is given: nothing listens on the
// discard port, so a request that escapes the interception fails.
const deadProxy = "127.0.0.1:9"

// chromeBrowser is one browser process and its process group.
type chromeBrowser struct {
	ctx     context.Context // chromedp's browser context
	cancel  func()
	dir     string // user data directory
	pgid    int
	watcher *os.File // write end of the watcher's pipe: closed, the watcher kills the group
	started time.Time

	// Guarded by Pool.mu.
	users    int  // renders using the browser
	draining bool // replaced: killed when the last user leaves
	gen      int
}

// startBrowser starts chromium for opts in its own process group, with a
// watcher that kills the group when this process dies.
func startBrowser(opts Options, gen int) (*chromeBrowser, error) {
	dir, err := os.MkdirTemp("", "webtable-render-")
	if err != nil {
		return nil, fmt.Errorf("render: user data directory: %w", err)
	}
	aopts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(opts.Exec), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.NoSandbox, chromedp.UserDataDir(dir),
		chromedp.WindowSize(opts.Width, opts.Height),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider"),
		chromedp.Flag("proxy-server", deadProxy), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("js-flags", "--max-old-space-size=512"),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), aopts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	b := &chromeBrowser{ctx: bctx, dir: dir, gen: gen, started: time.Now()}
	b.cancel = func() { cancelBrowser(); cancelAlloc() }
	// NB: the first Do starts the browser and ties it to its context: a
	// context of its own would end it with the start. One that does not
	// start within 30 s is given up.
	hung := time.AfterFunc(30*time.Second, b.cancel)
	err = chromedp.Do(bctx)
	hung.Stop()
	if err != nil {
		b.cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("render: starting %s: %w", opts.Exec, err)
	}
	proc := chromedp.FromContext(bctx).Browser.Process()
	if proc == nil {
		b.cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("render: %s started without a process", opts.Exec)
	}
	b.pgid = proc.Pid
	if err := b.watch(); err != nil {
		b.kill()
		return nil, err
	}
	return b, nil
}

// watch starts the watcher: a shell that waits for the end of a pipe
// whose only writer is this process, then kills the browser's group. The
// kernel closes the pipe however this process ends, SIGKILL included.
func (b *chromeBrowser) watch() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("render: watcher pipe: %w", err)
	}
	// NB: dash takes no "--" and reads "-s KILL -N" as options: "-9 -N".
	cmd := exec.Command("/bin/sh", "-c", "read x; kill -9 -"+strconv.Itoa(b.pgid))
	cmd.Stdin = r
	// NB: its own group, so that Ctrl-C (SIGINT to the terminal's group)
	// leaves it to do its job after the crawler's own shutdown.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return fmt.Errorf("render: starting the watcher: %w", err)
	}
	r.Close()
	go cmd.Wait()
	b.watcher = w
	return nil
}

// kill ends the browser: its whole process group at once, then chromedp's
// side, and removes its user data directory.
func (b *chromeBrowser) kill() {
	if b.pgid > 0 {
		syscall.Kill(-b.pgid, syscall.SIGKILL)
	}
	if b.watcher != nil {
		b.watcher.Close() // the watcher's kill finds nothing left
	}
	b.cancel()
	os.RemoveAll(b.dir)
}

// alive reports whether the browser answers a command within d.
func (b *chromeBrowser) alive(d time.Duration) bool {
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
	return err == nil
}

// memory returns the memory of the browser's process group, in bytes:
// the sum of its processes' proportional set sizes (see PSS).
func (b *chromeBrowser) memory() int64 {
	var total int64
	for _, pid := range groupProcs(b.pgid) {
		total += PSS(pid)
	}
	return total
}

// PSS returns the proportional set size of process pid in bytes, from
// /proc/<pid>/smaps_rollup: its resident memory with each page shared by
// n processes counted 1/n, so that the PSS of several processes adds up
// to the memory they use together (their resident sizes would count the
// browser's shared code once per process). 0 when it cannot be read.
func PSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		if rest, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// groupProcs returns the ids of the running processes of process group
// pgid, read from /proc/<pid>/stat (zombies left out).
func groupProcs(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil || pgid <= 0 {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// NB: the command name, in parentheses, may hold spaces: fields
		// are counted after its closing parenthesis.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		// f[0] is field 3 (state), f[2] field 5 (pgrp).
		if len(f) < 3 || string(f[0]) == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}
