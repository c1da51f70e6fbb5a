// Package flagvalue reads the values of the programs' flags that are more
// than a number or a string: sizes in bytes (10MiB), a shard of a split
// crawl (1/3), a file of certificate authorities. Its errors say what
// was wanted, with an example, for the person who typed the flag.
package flagvalue

import (
	"crypto/x509"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ParseShard reads a shard of a split crawl, "I/N" with 0 <= I < N
// (crawl --shard 1/3).
func ParseShard(v string) (i, n int, err error) {
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q is not I/N with 0 <= I < N (e.g. 0/3, 1/3, 2/3)", v)
	}
	return i, n, nil
}

// ParseBytes reads a size: a number of bytes, optionally with a unit
// (B, KB, KiB, MB, MiB, GB, GiB): "10MiB", "500KB", "65536". The size is at
// least 1 byte.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) && (u.suffix != "B" || !strings.HasSuffix(t, "iB")) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size in bytes (want e.g. 10MiB, 500KB or 65536)", s)
	}
	return n * mult, nil
}

// FormatBytes shows a byte count with a binary unit when it divides evenly.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// LoadCACert reads the PEM certificates of a file of certificate
// authorities (crawl --ca-cert).
func LoadCACert(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificates: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate (want a file starting with -----BEGIN CERTIFICATE-----)", path)
	}
	return pool, nil
}
