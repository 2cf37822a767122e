// Package textclf is a compact binary text classifier: logistic regression
// over hashed word and character n-grams, with optional dense features the
// caller names and computes.
//
// # Features
//
// [Config] describes the features. Text is lower-cased rune by rune
// (Unicode-aware; the typographic apostrophe folds to ') and split into
// tokens: a word is a run of letters, digits, marks, '_' and apostrophes;
// every other non-space rune is a token of its own. The features are word
// unigrams, adjacent-word bigrams, and character n-grams (3 to 5 runes by
// default) over the lower-cased text with runs of white space collapsed to
// one space and a space at each end. Each distinct n-gram is hashed with
// 64-bit FNV-1a (a fixed function, so a model means the same thing in every
// process and on every platform) into one of 2^Bits buckets (2^18 by
// default) with a sign taken from the hash (signed feature hashing keeps
// collisions unbiased). Its value is the sublinear term frequency
// 1+ln(tf); the hashed part of the vector is L2-normalised. Dense features
// are appended after the buckets, unscaled: the caller keeps them in a
// sensible range (0..1 or a few units).
//
// # Model
//
// [Train] fits a logistic regression by AdaGrad with L2 regularisation,
// class weights (balanced by default) and early stopping on a validation
// split, from a seed: the same examples and [TrainConfig] give the same
// bytes from [Model.MarshalBinary] on the same GOARCH (the update
// arithmetic is written so that the compiler cannot fuse it into
// multiply-adds; platforms may still differ in the last bit of a libm
// function, which quantisation nearly always absorbs). The threshold is
// chosen on the validation split for a target precision (or set by the
// caller with [Model.SetThreshold], for example for a target false-positive
// rate measured on a benign corpus with [ThresholdForFPR]).
//
// The serialised form is a header (magic, format version, feature config,
// dense feature names, threshold, bias, quantisation scale, a SHA-256 hash
// of the training data, a free-form note) followed by the weights quantised
// to int8 with one scale, stored densely or as delta-coded sparse runs,
// whichever is smaller, and a CRC-32 of everything. [Load] validates all of
// it; [LoadOnce] wraps it in a sync.OnceValues so a model embedded with
// go:embed costs nothing until its first use.
//
// # Use
//
// [Model.Score] returns the probability of the positive class; it allocates
// nothing in the steady state (scratch buffers come from a sync.Pool) and
// takes tens of microseconds for a few hundred characters.
// [Model.Explain] returns the features that pushed the score up most, with
// their n-gram text, so a decision can say what drove it.
//
// # Caveats
//
// A linear model over n-grams learns the vocabulary and style of its
// training data. It generalises to paraphrases that share n-grams with what
// it saw and not much further; evaluate it on whole sources it was not
// trained or tuned on. Hash collisions make a few unrelated n-grams share a
// weight; Explain names the n-gram in the text, not the others in its
// bucket.
package textclf
