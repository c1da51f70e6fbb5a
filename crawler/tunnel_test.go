package crawler

import (
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// serveTLS starts w's https side: hosts under example.com (the names of
// httptest's certificate) named by tunnel get their CONNECT tunnelled to
// a TLS server dispatching to the same handlers. It returns the pool that
// trusts that server, for Config.RootCAs.
func (w *vweb) serveTLS(t *testing.T, tunnel ...string) *x509.CertPool {
	t.Helper()
	w.mu.Lock()
	if w.tls == nil {
		w.tls = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
		w.tls.StartTLS()
		t.Cleanup(w.tls.Close)
	}
	if w.tunnels == nil {
		w.tunnels = map[string]bool{}
	}
	for _, h := range tunnel {
		w.tunnels[h] = true
	}
	srv := w.tls
	w.mu.Unlock()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

// connect answers a CONNECT: a tunnel to the TLS server for the hosts w
// tunnels, 403 for the others (counted as hits with Scheme "connect").
func (w *vweb) connect(rw http.ResponseWriter, r *http.Request) {
	host, port, _ := net.SplitHostPort(r.Host)
	w.mu.Lock()
	ok := w.tls != nil && w.tunnels[host] && port == "443"
	w.hits = append(w.hits, hit{Host: host, Path: r.Host, Scheme: "connect"})
	var addr string
	if ok {
		addr = w.tls.Listener.Addr().String()
	}
	w.mu.Unlock()
	if !ok {
		http.Error(rw, "CONNECT refused", http.StatusForbidden)
		return
	}
	backend, err := net.Dial("tcp", addr)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadGateway)
		return
	}
	conn, buf, err := http.NewResponseController(rw).Hijack()
	if err != nil {
		backend.Close()
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		backend.Close()
		conn.Close()
		return
	}
	go func() {
		defer backend.Close()
		defer conn.Close()
		go func() {
			io.Copy(backend, buf)
			backend.(*net.TCPConn).CloseWrite()
		}()
		io.Copy(conn, backend)
	}()
}
