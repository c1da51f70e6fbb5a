package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkNoDownload checks that the file the page /download downloads
// (report.bin) reached none of the places a browser saves downloads to:
// its user data directory, the user's Downloads and the working
// directory.
func checkNoDownload(t *testing.T, pool *Pool) {
	t.Helper()
	pool.mu.Lock()
	dirs := []string{pool.cur.dir, "."}
	pool.mu.Unlock()
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "Downloads"))
	}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), "report") && strings.Contains(d.Name(), ".bin") {
				t.Errorf("the page's download was written to %s", path)
			}
			return nil
		})
	}
}
