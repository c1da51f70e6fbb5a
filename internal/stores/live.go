package stores

// Serving reports whether the store in directory dir is held by a crawl
// that serves it (crawl --serve), so that Open(ForRead) reads it through
// that crawl's server instead of holding it.
func Serving(dir string) bool {
	if IsCloud(dir) {
		return false
	}
	_, ok := liveEndpoint(dir)
	return ok
}
