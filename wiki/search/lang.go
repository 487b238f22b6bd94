package search

import (
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/bg"
	"github.com/blevesearch/bleve/v2/analysis/lang/ca"
	"github.com/blevesearch/bleve/v2/analysis/lang/cs"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/el"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fa"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hi"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/id"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
)

// DefaultLang is the language of a page that names none and whose path and
// text say nothing clearer.
const DefaultLang = "en"

// snowball maps a language to its Snowball stemmer (blevesearch/snowballstem).
var snowball = map[string]func(*snowballstem.Env) bool{
	"en": english.Stem, "de": german.Stem, "fr": french.Stem, "es": spanish.Stem,
	"it": italian.Stem, "pt": portuguese.Stem, "nl": dutch.Stem, "ru": russian.Stem,
	"sv": swedish.Stem, "no": norwegian.Stem, "nb": norwegian.Stem, "da": danish.Stem,
	"fi": finnish.Stem, "hu": hungarian.Stem, "ro": romanian.Stem, "tr": turkish.Stem,
}

// filterStemmers are bleve's normalise+stem filters for languages Snowball
// lacks here.
var filterStemmers = map[string][]analysis.TokenFilter{
	"ar": {ar.NewArabicNormalizeFilter(), ar.NewArabicStemmerFilter()},
	"fa": {ar.NewArabicNormalizeFilter(), fa.NewPersianNormalizeFilter()},
	"hi": {hi.NewHindiNormalizeFilter(), hi.NewHindiStemmerFilter()},
}

// hasStemmer reports whether lang has a stemmer.
func hasStemmer(lang string) bool {
	base := baseLang(lang)
	_, ok := snowball[base]
	_, ok2 := filterStemmers[base]
	return ok || ok2
}

// stem returns the stem of a folded word in lang ("" when lang has no
// stemmer). The stem is taken from the lower-case word (stemmers know their
// language's accents) and folded afterwards.
func stem(lang, lower string) string {
	base := baseLang(lang)
	if fn, ok := snowball[base]; ok {
		env := snowballstem.NewEnv(lower)
		fn(env)
		return fold(env.Current())
	}
	if fs, ok := filterStemmers[base]; ok {
		ts := analysis.TokenStream{&analysis.Token{Term: []byte(lower)}}
		for _, f := range fs {
			ts = f.Filter(ts)
		}
		return fold(string(ts[0].Term))
	}
	return ""
}

// stopLists holds each language's stop words, folded.
var stopLists = sync.OnceValue(func() map[string]map[string]bool {
	src := map[string][]byte{
		"en": en.EnglishStopWords, "de": de.GermanStopWords, "fr": fr.FrenchStopWords,
		"es": es.SpanishStopWords, "it": it.ItalianStopWords, "pt": pt.PortugueseStopWords,
		"nl": nl.DutchStopWords, "ru": ru.RussianStopWords, "sv": sv.SwedishStopWords,
		"no": no.NorwegianStopWords, "da": da.DanishStopWords, "fi": fi.FinnishStopWords,
		"hu": hu.HungarianStopWords, "ro": ro.RomanianStopWords, "tr": tr.TurkishStopWords,
		"ar": ar.ArabicStopWords, "fa": fa.PersianStopWords, "hi": hi.HindiStopWords,
		"cs": cs.CzechStopWords, "ca": ca.CatalanStopWords,
		"bg": bg.BulgarianStopWords, "el": el.GreekStopWords, "id": id.IndonesianStopWords,
	}
	out := map[string]map[string]bool{}
	for lang, b := range src {
		tm := analysis.NewTokenMap()
		_ = tm.LoadBytes(b)
		m := map[string]bool{}
		for w := range tm {
			m[fold(w)] = true
		}
		// Snowball's English list lacks a few words questions are made of.
		if lang == "en" {
			for _, w := range []string{"how", "can", "get", "make", "want", "use", "using", "way", "also", "like", "without", "one"} {
				m[w] = true
			}
		}
		out[lang] = m
	}
	return out
})

// isStop reports whether a folded term is a stop word of lang.
func isStop(lang, term string) bool {
	return stopLists()[baseLang(lang)][term]
}

// baseLang turns "pt-br", "pt_BR", "zh-TW" into "pt", "pt", "zh".
func baseLang(lang string) string {
	lang = strings.ToLower(lang)
	if i := strings.IndexAny(lang, "-_"); i > 0 {
		lang = lang[:i]
	}
	if lang == "nb" || lang == "nn" {
		return "no"
	}
	return lang
}

// knownLangs are the language codes a folder name is read as (see
// [langFromPath]). Codes that are common English words or folder names on
// their own ("it", "no", "id", "is") are included only as they appear in
// real multilingual vaults; document them.
var knownLangs = map[string]bool{
	"af": true, "am": true, "ar": true, "az": true, "be": true, "bg": true, "bn": true, "bs": true,
	"ca": true, "cs": true, "cy": true, "da": true, "de": true, "el": true, "en": true, "eo": true,
	"es": true, "et": true, "eu": true, "fa": true, "fi": true, "fil": true, "fr": true, "ga": true,
	"gl": true, "gu": true, "he": true, "hi": true, "hr": true, "hu": true, "hy": true, "id": true,
	"it": true, "ja": true, "ka": true, "kk": true, "km": true, "kn": true, "ko": true, "ku": true,
	"ky": true, "lo": true, "lt": true, "lv": true, "mk": true, "ml": true, "mn": true, "mr": true,
	"ms": true, "my": true, "nb": true, "ne": true, "nl": true, "nn": true, "no": true, "pa": true,
	"pl": true, "ps": true, "pt": true, "ro": true, "ru": true, "si": true, "sk": true, "sl": true,
	"sq": true, "sr": true, "sv": true, "sw": true, "ta": true, "te": true, "th": true, "tl": true,
	"tr": true, "uk": true, "ur": true, "uz": true, "vi": true, "zh": true,
}

var langTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z]{2,3})(?:[-_]([A-Za-z]{2,4}))?$`) })

// normLang returns a language tag in the form search uses ("pt-br",
// "zh-tw", "en"), or "" when s is not a known language tag.
func normLang(s string) string {
	s = strings.TrimSpace(s)
	m := langTag().FindStringSubmatch(strings.ToLower(s[:min(len(s), 16)]))
	if m == nil || !knownLangs[m[1]] {
		return ""
	}
	if m[2] != "" {
		return m[1] + "-" + strings.ToLower(m[2])
	}
	return m[1]
}

// langFromPath reads a language from a project-relative path: the first
// folder (below pages/ or sources/) named by a language tag ("de",
// "pt-br", "zh-TW") or ending in ".<tag>" or "_<tag>" ("pages.de",
// "docs_fr"). "" when no folder names one.
func langFromPath(rel string) string {
	dir := path.Dir(rel)
	if dir == "." {
		return ""
	}
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		if i == 0 && (p == "pages" || p == "sources") {
			continue
		}
		if l := normLang(p); l != "" {
			return l
		}
		if j := strings.LastIndexAny(p, "._"); j > 0 && j < len(p)-1 {
			if l := normLang(p[j+1:]); l != "" {
				return l
			}
		}
	}
	return ""
}

// langFromText guesses a language from a text sample: by script for
// scripts that name one (kana → ja, Hangul → ko, Han → zh, Thai, Arabic
// script (Persian letters → fa), Hebrew, Cyrillic (Ukrainian letters → uk),
// Greek, Devanagari...), and for Latin text by counting stop words of each
// language: a language wins when it has at least minHits stop words and twice
// the runner-up's. "" when nothing is clear.
func langFromText(sample string, minHits int) string {
	var counts = map[string]int{}
	letters := 0
	for _, r := range sample {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			counts["ja"]++
		case unicode.Is(unicode.Hangul, r):
			counts["ko"]++
		case unicode.Is(unicode.Han, r):
			counts["zh"]++
		case unicode.Is(unicode.Thai, r):
			counts["th"]++
		case unicode.Is(unicode.Khmer, r):
			counts["km"]++
		case unicode.Is(unicode.Lao, r):
			counts["lo"]++
		case unicode.Is(unicode.Arabic, r):
			counts["ar"]++
			if strings.ContainsRune("پچژگکی", r) {
				counts["fa"]++
			}
		case unicode.Is(unicode.Hebrew, r):
			counts["he"]++
		case unicode.Is(unicode.Cyrillic, r):
			counts["ru"]++
			if strings.ContainsRune("іїєґІЇЄҐ", r) {
				counts["uk"]++
			}
		case unicode.Is(unicode.Greek, r):
			counts["el"]++
		case unicode.Is(unicode.Devanagari, r):
			counts["hi"]++
		case unicode.Is(unicode.Bengali, r):
			counts["bn"]++
		case unicode.Is(unicode.Tamil, r):
			counts["ta"]++
		case unicode.Is(unicode.Malayalam, r):
			counts["ml"]++
		case unicode.Is(unicode.Latin, r):
			counts["latin"]++
		}
	}
	if letters == 0 {
		return ""
	}
	// Japanese mixes kana with Han; a little kana is enough.
	if counts["ja"] > 0 && counts["ja"]+counts["zh"] > letters/3 {
		return "ja"
	}
	// Ties go to a script other than Latin (in "run` 的別名" the Latin
	// letters are a command's name), then to the first code: never to the
	// order a map happens to give, or one query would rank differently
	// from one search to the next.
	best, n := "", 0
	for k, v := range counts {
		if k == "fa" || k == "uk" {
			continue
		}
		if v > n || v == n && (best == "latin" || k != "latin" && k < best) {
			best, n = k, v
		}
	}
	if n*2 < letters {
		return ""
	}
	switch best {
	case "ar":
		if counts["fa"] > 0 {
			return "fa"
		}
		return "ar"
	case "ru":
		if counts["uk"] > 0 {
			return "uk"
		}
		return "ru"
	case "latin":
		return latinLang(sample, minHits)
	}
	return best
}

// latinLang guesses the language of Latin-script text by stop words.
func latinLang(sample string, minHits int) string {
	hits := map[string]int{}
	words := 0
	analyze(sample, func(t token) {
		if t.extra || !t.word || words > 400 {
			return
		}
		words++
		for lang, m := range stopLists() {
			if m[t.term] {
				hits[lang]++
			}
		}
	})
	best, n, second := "", 0, 0
	for lang, h := range hits {
		switch {
		case h > n || (h == n && lang == DefaultLang):
			second = max(second, n)
			best, n = lang, h
		case h > second:
			second = h
		}
	}
	if n < minHits || n < 2*second {
		return ""
	}
	return best
}
