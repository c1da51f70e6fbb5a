// Package text is the text job: for each stored HTML version of a page,
// its title, visible text (at most [MaxText] bytes) and language ([Lang]),
// written to the text family at the version's timestamp, with text:src
// naming the [Form] of the cells and the SHA-256 of the bytes they came
// from. [Analyze] is the derivation of one version.
//
// A run rewrites a row only where a version's text is missing, of
// another form, or from other bytes, or where text cells stand for
// versions no longer stored; the job has no Prepare work and reads no
// other row.
//
// # Caveats
//
//   - A version whose contents:html does not match its contents:sha256
//     gets no text, and its row is counted as bad input (jobs.Env.Bad).
//   - A page whose mime says it is not HTML gets no text.
package text
