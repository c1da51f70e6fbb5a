package seeds

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGather(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(list, []byte("http://a.example/\nnot a url\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		path        string
		args        []string
		want        []string
		skipped     int
		errContains string
	}{
		{name: "file then arguments", path: list, args: []string{"http://b.example/"}, want: []string{"http://a.example/", "http://b.example/"}, skipped: 1},
		{name: "bad arguments beside a good file are skipped", path: list, args: []string{"::"}, want: []string{"http://a.example/"}, skipped: 2},
		{name: "only bad arguments", args: []string{"::"}, errContains: "no usable seed URL among the arguments (want e.g. http://example.org/); 1 bad line(s), the first: "},
		{name: "empty file", path: empty, errContains: "empty.txt"},
		{name: "absent file", path: filepath.Join(dir, "absent.txt"), errContains: "absent.txt"},
		{name: "nothing", want: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			urls, skipped, err := Gather(tc.path, tc.args)
			if tc.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errContains) {
					t.Fatalf("Gather = %v, want an error containing %q", err, tc.errContains)
				}
				return
			}
			if err != nil || !slices.Equal(urls, tc.want) || len(skipped) != tc.skipped {
				t.Fatalf("Gather = %q, %d skipped, %v; want %q, %d skipped", urls, len(skipped), err, tc.want, tc.skipped)
			}
		})
	}
}
