package render

import (
	"fmt"
	"os/exec"
	"time"
)

// Defaults of [Options].
const (
	// DefaultTabs is the default of Options.Tabs: one per core of a
	// small machine.
	DefaultTabs = 2
	// DefaultTimeout is the default of Options.Timeout.
	DefaultTimeout = 15 * time.Second
	// DefaultQuiet is the default of Options.Quiet.
	DefaultQuiet = 50 * time.Millisecond
	// DefaultMaxMemory is the default of Options.MaxMemory: 1.5 GiB.
	DefaultMaxMemory = 3 << 29
	// DefaultExec is Debian's chromium.
	DefaultExec = "/usr/bin/chromium"
)

// Options configure a [Pool].
type Options struct {
	// Exec is the browser program. The default value is DefaultExec.
	Exec string
	// Tabs is how many pages render at once (crawl --render-tabs). The
	// default value is DefaultTabs.
	Tabs int
	// Timeout bounds one render, from the tab's start on the page to its
	// document read (crawl --render-timeout). The default value is
	// DefaultTimeout.
	Timeout time.Duration
	// Quiet is how long a loaded page's document must stay unchanged, with
	// no request in flight and no short timer pending, to be done. The
	// default value is DefaultQuiet.
	Quiet time.Duration
	// MaxMemory is the most memory, in bytes, the browser's processes may
	// use together (the sum of their proportional set sizes, see [PSS])
	// before the browser is restarted. The default value is
	// DefaultMaxMemory.
	MaxMemory int64
	// Width and Height are the screen's size in CSS pixels. The default
	// values are 1280 and 800.
	Width, Height int
	// Log, when set, is told of browser restarts, one line each.
	Log func(line string)
}

// withDefaults returns o with its zero fields set to their defaults, or an
// error for a negative one.
func (o Options) withDefaults() (Options, error) {
	if o.Tabs < 0 || o.Timeout < 0 || o.Quiet < 0 || o.MaxMemory < 0 || o.Width < 0 || o.Height < 0 {
		return o, fmt.Errorf("render: negative option in %+v", o)
	}
	if o.Exec == "" {
		o.Exec = DefaultExec
	}
	if o.Tabs == 0 {
		o.Tabs = DefaultTabs
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Quiet == 0 {
		o.Quiet = DefaultQuiet
	}
	if o.MaxMemory == 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	if o.Width == 0 {
		o.Width = 1280
	}
	if o.Height == 0 {
		o.Height = 800
	}
	return o, nil
}

// LookPath returns the browser program that Options{Exec: exe} runs
// (DefaultExec when exe is ""), and an error when it is not there to run.
func LookPath(exe string) (string, error) {
	if exe == "" {
		exe = DefaultExec
	}
	_, err := exec.LookPath(exe)
	return exe, err
}
