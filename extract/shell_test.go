package extract

import "testing"

func TestLooksLikeShell(t *testing.T) {
	long := ""
	for range 30 {
		long += "manual text "
	}
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"root div and a script", `<html><head><script src="/app.js"></script></head><body><div id="app"></div></body></html>`, true},
		{"loading text and noscript", `<body><div id="root">Loading…</div><noscript>` + long + `</noscript><script>boot()</script></body>`, true},
		{"unclosed head", `<head><title>x</title><script src=a.js></script><body><div id=app></div>`, true},
		{"no script", `<body><div id="app"></div></body>`, false},
		{"a manual page", `<body><p>` + long + `</p><script src="/searchtools.js"></script></body>`, false},
		{"a short page of links", `<body><a href=a>a</a><a href=b>b</a><a href=c>c</a><script></script></body>`, false},
		{"two links and a script", `<body><a href=a>a</a><a href=b>b</a><script></script></body>`, true},
		{"text in a script is not visible", `<body><script>var s = "` + long + `";</script></body>`, true},
		{"text after a self-closed script", `<body><script src=x.js /><p>` + long + `</p></body>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LooksLikeShell([]byte(tc.body), "text/html; charset=utf-8"); got != tc.want {
				t.Errorf("LooksLikeShell(%q) = %v (signs %+v), want %v", tc.body, got, ShellSigns([]byte(tc.body), "text/html"), tc.want)
			}
		})
	}
}

func FuzzShellSigns(f *testing.F) {
	f.Add([]byte(`<div id=app></div><script src=/app.js></script>`))
	f.Add([]byte(`<head><script>x</script><body><p>text</p><a href=/>x</a>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := ShellSigns(body, "text/html")
		if s.Text < 0 || s.Scripts < 0 || s.Links < 0 {
			t.Fatalf("ShellSigns(%q) = %+v: negative counts", body, s)
		}
		if s.Shell() != LooksLikeShell(body, "text/html") {
			t.Fatalf("LooksLikeShell(%q) disagrees with ShellSigns %+v", body, s)
		}
		if s.Scripts == 0 && s.Shell() {
			t.Fatalf("ShellSigns(%q) = %+v: a shell without a script", body, s)
		}
	})
}
