//go:build !race

package stores

// bigPage is the size of the page TestServedStoreBigPage sends: 60 MiB.
const bigPage = 60 << 20
