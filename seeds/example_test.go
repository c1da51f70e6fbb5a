package seeds_test

import (
	"fmt"
	"strings"

	"github.com/webtable/webtable/seeds"
)

func ExampleParse() {
	list := `# news
http://www.cnn.com/
HTTPS://CNNSI.COM   # sports
mailto:news@cnn.com
`
	good, bad, err := seeds.Parse(strings.NewReader(list), "seeds.txt")
	fmt.Println(seeds.URLs(good), err)
	for _, b := range bad {
		fmt.Println(b)
	}
	// Output:
	// [http://www.cnn.com/ https://cnnsi.com/] <nil>
	// seeds.txt:4: urlkey: canonical "mailto:news@cnn.com": scheme is not http or https: "mailto"
}
