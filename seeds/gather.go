package seeds

import (
	"fmt"
	"strings"
)

// Gather reads the seeds of a crawl: the seed list in the file at path
// (none when path is ""), then the URLs given as command-line arguments,
// as [Load] and [Parse] do. It returns their URLs in order, and the bad
// lines it skipped. An unreadable or empty file is an error, and so are
// arguments none of which is a URL when the file gave none; the error
// then names the first bad line.
func Gather(path string, args []string) (urls []string, skipped []*LineError, err error) {
	var all []Seed
	if path != "" {
		s, bad, err := Load(path)
		if err != nil {
			return nil, nil, fmt.Errorf("%v%s", err, firstBad(bad))
		}
		all, skipped = append(all, s...), append(skipped, bad...)
	}
	if len(args) > 0 {
		s, bad, err := Parse(strings.NewReader(strings.Join(args, "\n")), "arguments")
		if err != nil && len(all) == 0 {
			return nil, nil, fmt.Errorf("no usable seed URL among the arguments (want e.g. http://example.org/)%s", firstBad(bad))
		}
		all, skipped = append(all, s...), append(skipped, bad...)
	}
	return URLs(all), skipped, nil
}

// firstBad names the first bad seed line, to explain why none was usable.
func firstBad(bad []*LineError) string {
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d bad line(s), the first: %v", len(bad), bad[0])
}
