// Package extract reads what a crawler and a reader of stored pages need out
// of an HTML page: its links with their anchor texts ([Extract]), its title
// ([Title]), whether it is an empty shell that only its scripts fill in
// ([LooksLikeShell], for crawl --render auto) and, to show how a page
// changed, its readable text ([Text]). It knows nothing of fetching,
// storage or row keys: the crawler resolves and filters the links it gets,
// and the web interface of query shows them.
//
// Bytes are decoded to UTF-8 first, as browsers do: the Content-Type
// charset, else a byte order mark, else <meta charset> or <meta http-equiv>,
// else windows-1252 (golang.org/x/net/html/charset).
//
// # Caveats
//
//   - Malformed HTML yields what the x/net/html tokenizer recovers; nothing
//     here fails.
//   - Output is bounded whatever the input: at most [MaxLinks] links of at
//     most [MaxAnchorText] bytes of text each; a title of at most
//     [MaxTitle] bytes; [Text] returns at most the bytes asked for.
package extract
