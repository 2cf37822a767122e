// Package index is memcore's vector layer. State holds the store's vector
// state — the vector and lexical indexes and the hybrid search over both,
// the cache loaded at open, the background build that fills a large index,
// snapshots, near-duplicate lookup — without ever reading the store: the
// store shows it the live atoms (Live) under its own lock, and embedding
// happens outside that lock with the caller's ctx (Reconcile returns the
// embedding work, which CatchUp runs after the lock is released; Embed
// embeds one text) or in the background build that Close cancels and
// waits for. Beside it are the pieces that know nothing of any state: the
// int8 quantisation every process scores with, the one vector cache format
// (vectors.odm), the bulk fill of both indexes from that cache, the
// locality-sensitive hash behind near-duplicate lookup, the dense-score
// calibration measured on the store's own vectors, and the corpus id odek
// compares.
package index
