package flagvalue

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
		raw  bool
	}{
		{"flag first", []string{"--raw", "a", "b"}, []string{"a", "b"}, true},
		{"flag between", []string{"a", "--raw", "b"}, []string{"a", "b"}, true},
		{"flag last", []string{"a", "b", "--raw"}, []string{"a", "b"}, true},
		{"-- ends the flags", []string{"a", "--", "--raw"}, []string{"a", "--raw"}, false},
		{"none", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			raw := fs.Bool("raw", false, "")
			got, err := ParseArgs(fs, tc.args)
			if err != nil || !slices.Equal(got, tc.want) || *raw != tc.raw {
				t.Errorf("ParseArgs(%q) = %q, %v, raw %v; want %q, raw %v", tc.args, got, err, *raw, tc.want, tc.raw)
			}
		})
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := ParseArgs(fs, []string{"a", "--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("ParseArgs(a --help) = %v, want flag.ErrHelp", err)
	}
	if _, err := ParseArgs(fs, []string{"a", "--nope"}); err == nil {
		t.Errorf("ParseArgs(a --nope): no error")
	}
}
