// Package difftest holds the differential and crash tests of package bigtable.
package difftest
