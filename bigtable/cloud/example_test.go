package cloud_test

import (
	"fmt"

	"github.com/webtable/webtable/bigtable/cloud"
)

func ExampleParseURL() {
	for _, db := range []string{"bigtable://my-project/my-instance/webtable", "./webtable.db", "bigtable://my-project"} {
		if !cloud.IsURL(db) {
			fmt.Printf("%s: a directory of the embedded store\n", db)
			continue
		}
		u, err := cloud.ParseURL(db)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("project %s, instance %s, table %s\n", u.Project, u.Instance, u.Table)
	}
	// Output:
	// project my-project, instance my-instance, table webtable
	// ./webtable.db: a directory of the embedded store
	// cloud: invalid URL "bigtable://my-project": want bigtable://PROJECT/INSTANCE[/TABLE], got 1 part(s)
}
