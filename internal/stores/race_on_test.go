//go:build race

package stores

// bigPage is the size of the page TestServedStoreBigPage sends: under the
// race detector, which checks every byte a copy touches, 16 MiB (still four
// times gRPC's default limit) instead of 60, to keep the suite's time.
const bigPage = 16 << 20
