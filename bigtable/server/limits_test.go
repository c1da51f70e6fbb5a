package server

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// rawConn opens a plain TCP connection to addr, sends the HTTP/2 client
// preface and an empty SETTINGS frame, and returns a framer on it.
func rawConn(t *testing.T, addr string) (net.Conn, *http2.Framer) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return c, fr
}

// nextFrame reads frames until one that is not a SETTINGS ack or a ping
// answer, for up to wait.
func nextFrame(t *testing.T, c net.Conn, fr *http2.Framer, wait time.Duration) (http2.Frame, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		if s, ok := f.(*http2.SettingsFrame); ok && s.IsAck() {
			continue
		}
		if p, ok := f.(*http2.PingFrame); ok && p.IsAck() {
			continue
		}
		return f, nil
	}
}

// serverSettings reads the server's first SETTINGS frame.
func serverSettings(t *testing.T, c net.Conn, fr *http2.Framer, wait time.Duration) (*http2.SettingsFrame, error) {
	t.Helper()
	f, err := nextFrame(t, c, fr, wait)
	if err != nil {
		return nil, err
	}
	s, ok := f.(*http2.SettingsFrame)
	if !ok {
		t.Fatalf("the server's first frame is %v, want SETTINGS", f)
	}
	return s, nil
}

// TestStreamLimit checks that the server tells each connection how many
// calls it may run at once.
func TestStreamLimit(t *testing.T) {
	_, srv := serve(t)
	c, fr := rawConn(t, srv.Addr())
	s, err := serverSettings(t, c, fr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Value(http2.SettingMaxConcurrentStreams); !ok || v != MaxStreams {
		t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS = %d (sent: %v), want %d", v, ok, MaxStreams)
	}
}

// TestConnectionLimit opens one connection more than the limit: it is not
// served until another closes.
func TestConnectionLimit(t *testing.T) {
	_, srv := serve(t, withLimits(2, MaxIdle))
	c1, fr1 := rawConn(t, srv.Addr())
	c2, fr2 := rawConn(t, srv.Addr())
	for _, c := range []struct {
		c  net.Conn
		fr *http2.Framer
	}{{c1, fr1}, {c2, fr2}} {
		if _, err := serverSettings(t, c.c, c.fr, 10*time.Second); err != nil {
			t.Fatalf("a connection within the limit: %v", err)
		}
	}
	c3, fr3 := rawConn(t, srv.Addr())
	// NB: a deadline, not a sleep: nothing is to come, and the test
	// checks that nothing came in that time.
	if _, err := serverSettings(t, c3, fr3, 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection over the limit of 2 was served (%v)", err)
	}
	c1.Close()
	if _, err := serverSettings(t, c3, fr3, 10*time.Second); err != nil {
		t.Fatalf("the third connection, once the first closed: %v", err)
	}
}

// TestIdleConnectionClosed checks that a connection that runs no call is
// sent GOAWAY after the idle time.
func TestIdleConnectionClosed(t *testing.T) {
	_, srv := serve(t, withLimits(MaxConnections, 200*time.Millisecond))
	c, fr := rawConn(t, srv.Addr())
	if _, err := serverSettings(t, c, fr, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	f, err := nextFrame(t, c, fr, 10*time.Second)
	if err != nil {
		t.Fatalf("an idle connection got no GOAWAY in 10 s: %v", err)
	}
	if _, ok := f.(*http2.GoAwayFrame); !ok {
		t.Errorf("an idle connection got %v, want GOAWAY", f)
	}
}

// TestPingFlood checks that a client pinging faster than MinClientPing is
// sent GOAWAY (ENHANCE_YOUR_CALM).
func TestPingFlood(t *testing.T) {
	_, srv := serve(t)
	c, fr := rawConn(t, srv.Addr())
	if _, err := serverSettings(t, c, fr, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := fr.WritePing(false, [8]byte{byte(i)}); err != nil {
			break // the server may have closed already
		}
	}
	for {
		f, err := nextFrame(t, c, fr, 10*time.Second)
		if err != nil {
			t.Fatalf("a ping flood got no GOAWAY: %v", err)
		}
		if g, ok := f.(*http2.GoAwayFrame); ok {
			if g.ErrCode != http2.ErrCodeEnhanceYourCalm {
				t.Errorf("GOAWAY %v after a ping flood, want ENHANCE_YOUR_CALM", g.ErrCode)
			}
			return
		}
	}
}
