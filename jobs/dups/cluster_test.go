package dups

import (
	"slices"
	"testing"
)

func TestCluster(t *testing.T) {
	a := Simhash("the committee will publish its report on the new railway next spring")
	pages := []Page{
		{Simhash: a, SHA256: "1"},
		{Simhash: a ^ 0b101, SHA256: "2"},                         // 2 bits away: near
		{Simhash: ^a, SHA256: "3"},                                // far
		{Simhash: 0, SHA256: "4"},                                 // no words
		{Simhash: 0, SHA256: "5"},                                 // no words, other bytes: not a copy of 4
		{Simhash: 0, SHA256: "4"},                                 // the same bytes as 4
		{Simhash: a ^ 0xff00000000000000, SHA256: "1"},            // far, but the same bytes as 0
		{Simhash: a ^ (1<<63 | 1<<40 | 1<<20 | 1<<5), SHA256: ""}, // 4 bits away: too far at 3
	}
	got := Cluster(pages, 3)
	want := []int{0, 0, 2, 3, 4, 3, 0, 7}
	if !slices.Equal(got, want) {
		t.Errorf("Cluster = %v, want %v", got, want)
	}
	if d := Distance(a, a^0b101); d != 2 {
		t.Errorf("Distance = %d, want 2", d)
	}
	if Simhash("") != 0 || Simhash("!!! ---") != 0 {
		t.Errorf("the simhash of text without words is not 0")
	}
	if Simhash("Hello, World") != Simhash("hello world") {
		t.Errorf("Simhash depends on case or punctuation")
	}
}
