// Package shingle measures how alike two texts are without comparing them
// pair by pair: word shingles (runs of 5 tokens), their Jaccard
// similarity, and MinHash sketches with LSH banding to find the pairs
// worth comparing.
//
// Tokens are runs of letters, digits and combining marks, lower-cased; in
// scripts written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar,
// Tibetan) every character is a token. A [Sketch] holds 64 minimum hash
// values; two sets with Jaccard similarity J agree on each with
// probability J (Broder, "On the resemblance and containment of
// documents", 1997), so [Sketch.Similarity] estimates J with a standard
// error of at most 0.0625. [Sketch.Bands] cuts the sketch into 16 bands of
// 4: two sets share a band with probability 1-(1-J^4)^16 (0.9998 at
// J=0.8, 0.64 at 0.5, 0.12 at 0.3), the LSH scheme of Indyk and Motwani
// (1998) as used for near-duplicate detection.
//
// wiki/links sketches every page as it parses it, and wiki/lint uses the
// sketches for merge candidates.
package shingle
