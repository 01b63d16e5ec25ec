package tpch

import (
	"math/rand/v2"
	"strings"
)

// textPool is the specification's text pool (clause 4.2.2.14): sentences
// generated from a small grammar over fixed word lists; a comment is a
// random substring of it. The specification's pool is 300 MB; a smaller
// one gives comments with the same word frequencies.
type textPool struct {
	text string
}

// newTextPool generates a pool of at least n bytes.
func newTextPool(r *rand.Rand, n int) *textPool {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(sentence(r))
		b.WriteByte(' ')
	}
	return &textPool{text: b.String()}
}

// comment returns a substring of the pool of length [lo, hi].
func (p *textPool) comment(r *rand.Rand, lo, hi int) string {
	n := between(r, lo, hi)
	at := r.IntN(len(p.text) - n)
	return p.text[at : at+n]
}

// sentence returns one sentence of the grammar:
//
//	noun phrase, verb phrase, terminator
//	noun phrase, verb phrase, prepositional phrase, terminator
//	noun phrase, verb phrase, noun phrase, terminator
//	noun phrase, prepositional phrase, verb phrase, noun phrase, terminator
//	noun phrase, prepositional phrase, verb phrase, prepositional phrase, terminator
func sentence(r *rand.Rand) string {
	var s strings.Builder
	b := &s
	nounPhrase(r, b)
	switch r.IntN(5) {
	case 0:
		verbPhrase(r, b)
	case 1:
		verbPhrase(r, b)
		prepPhrase(r, b)
	case 2:
		verbPhrase(r, b)
		nounPhrase(r, b)
	case 3:
		prepPhrase(r, b)
		verbPhrase(r, b)
		nounPhrase(r, b)
	case 4:
		prepPhrase(r, b)
		verbPhrase(r, b)
		prepPhrase(r, b)
	}
	return strings.TrimRight(s.String(), " ") + pick(r, terminators)
}

// words appends words, each followed by a space.
func words(b *strings.Builder, ws ...string) {
	for _, w := range ws {
		b.WriteString(w)
		b.WriteByte(' ')
	}
}

// nounPhrase: noun | adjective noun | adjective, adjective noun | adverb
// adjective noun.
func nounPhrase(r *rand.Rand, b *strings.Builder) {
	switch r.IntN(4) {
	case 0:
		words(b, pick(r, nouns))
	case 1:
		words(b, pick(r, adjectives), pick(r, nouns))
	case 2:
		words(b, pick(r, adjectives)+",", pick(r, adjectives), pick(r, nouns))
	case 3:
		words(b, pick(r, adverbs), pick(r, adjectives), pick(r, nouns))
	}
}

// verbPhrase: verb | auxiliary verb | verb adverb | auxiliary verb adverb.
func verbPhrase(r *rand.Rand, b *strings.Builder) {
	switch r.IntN(4) {
	case 0:
		words(b, pick(r, verbs))
	case 1:
		words(b, pick(r, auxiliaries), pick(r, verbs))
	case 2:
		words(b, pick(r, verbs), pick(r, adverbs))
	case 3:
		words(b, pick(r, auxiliaries), pick(r, verbs), pick(r, adverbs))
	}
}

// prepPhrase: preposition the noun phrase.
func prepPhrase(r *rand.Rand, b *strings.Builder) {
	words(b, pick(r, prepositions), "the")
	nounPhrase(r, b)
}
