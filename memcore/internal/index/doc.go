// Package index holds memcore's vector-index pieces that know nothing of
// the store: the int8 quantisation every process scores with, the one
// vector cache format (vectors.odm), the bulk fill of a vector and a
// lexical index from that cache, the locality-sensitive hash behind
// write-time near-duplicate lookup, and the corpus id odek compares.
package index
