package crawlstore

import (
	"net/netip"
	"testing"
)

func TestIsPrivateAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"0.0.0.0", true}, {"::1", true}, {"fd00::1", true}, {"fe80::1", true},
		{"::ffff:127.0.0.1", true}, {"::", true},
		{"8.8.8.8", false}, {"2001:4860:4860::8888", false}, {"172.32.0.1", false},
	} {
		if got := IsPrivateAddr(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("IsPrivateAddr(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
