package bigtable_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync/atomic"

	"github.com/webtable/webtable/bigtable"
)

// Example writes the BigTable paper's example row and reads it back.
func Example() {
	dir, _ := os.MkdirTemp("", "bigtable-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	db, err := bigtable.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.CreateTable(ctx, "webtable")
	db.CreateColumnFamily(ctx, "webtable", "contents")
	db.CreateColumnFamily(ctx, "webtable", "anchor")
	db.SetGCPolicy(ctx, "webtable", "contents", bigtable.MaxVersionsPolicy(3))
	tbl := db.Open("webtable")

	for i, html := range []string{"<html>v3", "<html>v5", "<html>v6"} {
		m := bigtable.NewMutation()
		m.Set("contents", "", bigtable.Timestamp(3+i*i), []byte(html))
		if err := tbl.Apply(ctx, "com.cnn.www", m); err != nil {
			log.Fatal(err)
		}
	}
	m := bigtable.NewMutation()
	m.Set("anchor", "cnnsi.com", 9, []byte("CNN"))
	m.Set("anchor", "my.look.ca", 8, []byte("CNN.com"))
	if err := tbl.Apply(ctx, "com.cnn.www", m); err != nil {
		log.Fatal(err)
	}

	row, err := tbl.ReadRow(ctx, "com.cnn.www")
	if err != nil {
		log.Fatal(err)
	}
	for _, fam := range []string{"anchor", "contents"} {
		for _, it := range row[fam] {
			fmt.Printf("%s %s @%d = %q\n", it.Row, it.Column, it.Timestamp, it.Value)
		}
	}
	// Output:
	// com.cnn.www anchor:cnnsi.com @9 = "CNN"
	// com.cnn.www anchor:my.look.ca @8 = "CNN.com"
	// com.cnn.www contents: @7 = "<html>v6"
	// com.cnn.www contents: @4 = "<html>v5"
	// com.cnn.www contents: @3 = "<html>v3"
}

// ExampleTable_ReadRows scans the anchors of a domain's pages, newest
// version only, without reading the pages' contents.
func ExampleTable_ReadRows() {
	dir, _ := os.MkdirTemp("", "bigtable-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, _ := bigtable.Open(dir)
	defer db.Close()
	db.CreateTable(ctx, "webtable")
	db.CreateColumnFamily(ctx, "webtable", "contents")
	db.CreateColumnFamily(ctx, "webtable", "anchor")
	tbl := db.Open("webtable")

	rows := []string{"com.cnn.www/", "com.cnn.www/world", "com.example/"}
	var muts []*bigtable.Mutation
	for _, r := range rows {
		m := bigtable.NewMutation()
		m.Set("contents", "", 1, []byte("<html>...</html>"))
		m.Set("anchor", "com.example/", 1, []byte("old text"))
		m.Set("anchor", "com.example/", 2, []byte("link to "+r))
		muts = append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		log.Fatal(err, errs)
	}

	err := tbl.ReadRows(ctx, bigtable.PrefixRange("com.cnn.www/"), func(r bigtable.Row) bool {
		for _, it := range r["anchor"] {
			fmt.Printf("%s %s = %s\n", r.Key(), it.Column, it.Value)
		}
		return true
	}, bigtable.RowFilter(bigtable.ChainFilters(
		bigtable.FamilyFilter("anchor"),
		bigtable.LatestNFilter(1),
	)))
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// com.cnn.www/ anchor:com.example/ = link to com.cnn.www/
	// com.cnn.www/world anchor:com.example/ = link to com.cnn.www/world
}

// ExampleTable_ReadRow_asOf reads a cell as it was at a given time.
func ExampleTable_ReadRow_asOf() {
	dir, _ := os.MkdirTemp("", "bigtable-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, _ := bigtable.Open(dir)
	defer db.Close()
	db.CreateTable(ctx, "t")
	db.CreateColumnFamily(ctx, "t", "A")
	tbl := db.Open("t")
	m := bigtable.NewMutation()
	m.Set("A", "foo", 15, []byte("y"))
	m.Set("A", "foo", 4, []byte("m"))
	tbl.Apply(ctx, "aaa", m)

	for _, asOf := range []bigtable.Timestamp{20, 4, 2} {
		row, _ := tbl.ReadRow(ctx, "aaa", bigtable.RowFilter(bigtable.ChainFilters(
			bigtable.TimestampRangeFilterMicros(0, asOf+1),
			bigtable.LatestNFilter(1),
		)))
		if len(row["A"]) == 0 {
			fmt.Printf("as of %d: nothing\n", asOf)
			continue
		}
		fmt.Printf("as of %d: %s\n", asOf, row["A"][0].Value)
	}
	// Output:
	// as of 20: y
	// as of 4: m
	// as of 2: nothing
}

// ExampleTable_ApplyReadModifyWrite counts visits with an atomic increment.
func ExampleTable_ApplyReadModifyWrite() {
	dir, _ := os.MkdirTemp("", "bigtable-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, _ := bigtable.Open(dir)
	defer db.Close()
	db.CreateTable(ctx, "webtable")
	db.CreateColumnFamily(ctx, "webtable", "stats")
	tbl := db.Open("webtable")

	for range 3 {
		m := bigtable.NewReadModifyWrite()
		m.Increment("stats", "visits", 1)
		if _, err := tbl.ApplyReadModifyWrite(ctx, "com.cnn.www/", m); err != nil {
			log.Fatal(err)
		}
	}
	row, _ := tbl.ReadRow(ctx, "com.cnn.www/", bigtable.RowFilter(bigtable.LatestNFilter(1)))
	fmt.Printf("%x\n", row["stats"][0].Value)
	// Output:
	// 0000000000000003
}

// ExampleNewCondMutation writes a row only if it does not exist yet.
func ExampleNewCondMutation() {
	dir, _ := os.MkdirTemp("", "bigtable-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, _ := bigtable.Open(dir)
	defer db.Close()
	db.CreateTable(ctx, "webtable")
	db.CreateColumnFamily(ctx, "webtable", "meta")
	tbl := db.Open("webtable")

	for _, who := range []string{"first", "second"} {
		claim := bigtable.NewMutation()
		claim.Set("meta", "owner", 1, []byte(who))
		var exists bool
		cm := bigtable.NewCondMutation(nil, nil, claim)
		if err := tbl.Apply(ctx, "com.cnn.www/", cm, bigtable.GetCondMutationResult(&exists)); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: row existed: %v\n", who, exists)
	}
	// Output:
	// first: row existed: false
	// second: row existed: true
}

// ExampleTable_ReadRowsParallel cuts a table into small tablets and reads
// it one tablet per goroutine, summing page sizes: rows arrive in no
// global order and the callback runs concurrently, so it uses an atomic.
func ExampleTable_ReadRowsParallel() {
	dir, _ := os.MkdirTemp("", "bigtable-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	db, err := bigtable.Open(dir, bigtable.WithTabletSplitSize(16<<10))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.CreateTable(ctx, "webtable")
	db.CreateColumnFamily(ctx, "webtable", "contents")
	tbl := db.Open("webtable")
	var rows []string
	var muts []*bigtable.Mutation
	for i := range 100 {
		m := bigtable.NewMutation()
		m.Set("contents", "", 1, make([]byte, 1000))
		rows = append(rows, fmt.Sprintf("com.example.www/%03d", i))
		muts = append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(ctx, rows, muts); err != nil || errs != nil {
		log.Fatal(err, errs)
	}

	var pages, bytes atomic.Int64
	err = tbl.ReadRowsParallel(ctx, bigtable.PrefixRange("com.example."), func(r bigtable.Row) bool {
		pages.Add(1)
		bytes.Add(int64(len(r["contents"][0].Value)))
		return true
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pages.Load(), "pages,", bytes.Load(), "bytes")
	// Output: 100 pages, 100000 bytes
}
