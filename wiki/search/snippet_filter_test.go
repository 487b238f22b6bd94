package search

import (
	"reflect"
	"strings"
	"testing"
)

// TestLineFilterSameMatches: the matches found through the line filter are
// the matches of an analysis of the whole text, for the cases where a
// token's term is not the text it covers (folding, stems, compounds,
// identifiers, mnemonics, scripts without spaces).
func TestLineFilterSameMatches(t *testing.T) {
	_, x, _ := testWiki(t, fixture)
	filler := "Nothing to see on this line at all.\n"
	tests := []struct {
		name, lang, query, text string
		want                    int // matches expected
	}{
		{"accent", "en", "cafe", "Le Café du coin.\nCAFÉ\ncafe", 3},
		{"accent in query", "en", "Café", "cafe au lait\nCafé\n", 2},
		{"stem", "en", "dying plants", "The plant is dying.\nPlants die.\nIt died.\n", 5},
		{"stem y to i", "en", "try", "He tried.\nTries and trying.\n", 3},
		{"stem of a camelCase part", "en", "users", "call getUserName()\nthe user_id\n", 2},
		{"mnemonic", "en", "create extract", "- [c]reate an archive:\n- e[x]tract it:\n", 2},
		{"compound", "en", "dryrun", "use --dry-run first\n", 1},
		{"identifier joined", "en", "getusername", "get_user_name is a function\n", 1},
		{"c++", "en", "c++", "Written in C++.\n", 2},
		// Bigrams only: a letter of a longer run is no alternative of its
		// bigram (token.letter).
		{"cjk", "zh", "同步服务", "我们的同步服务很好。\nnothing here\n", 3},
		{"japanese", "ja", "ノート", "新しいノートを作成\n", 2},
		{"french stem", "fr", "publications", "Les publications récentes.\nUne publication.\n", 2},
		{"german umlaut", "de", "Übersicht", "Die Übersicht zeigt.\nUEBERSICHT\nubersicht\n", 2},
		{"finnish undoubled", "fi", "ikkuna", "Avaa ikkuna.\nikkunaan\n", 2},
		{"cyrillic", "ru", "заметки", "Создание заметки.\nЗаметка\n", 2},
		{"turkish (no filter)", "tr", "bağlantı", "bir bağlantı\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups, _, _, _ := x.readQuery(Query{Text: tc.query, Match: MatchBest, Lang: tc.lang})
			want := map[string]int{}
			for gi, g := range groups {
				for _, s := range append(append([]string{}, g.terms...), g.stems...) {
					if _, ok := want[s]; !ok {
						want[s] = gi
					}
				}
			}
			text := strings.Repeat(filler, 3) + tc.text + strings.Repeat(filler, 3)
			all := findMatches(text, tc.lang, want, nil)
			got := findMatchesIn(text, tc.lang, want, lineNeedles(tc.lang, groups))
			if !reflect.DeepEqual(got, all) {
				t.Errorf("filtered %v, whole analysis %v", got, all)
			}
			if len(all) != tc.want {
				t.Errorf("%d matches, want %d: %v (groups %+v)", len(all), tc.want, all, groups)
			}
			if f := lineNeedles(tc.lang, groups); f != nil && f.mayMatch(filler) {
				t.Errorf("the filler line passes the filter %+v", f)
			}
		})
	}
}

// A run of a bigram-indexed script is searched by its bigrams alone: no
// group of a longer run takes one of its letters as an alternative (which
// matched every page of the script), while a query of one letter is that
// letter.
func TestNgramQueryGroups(t *testing.T) {
	_, x, _ := testWiki(t, fixture)
	for _, tc := range []struct {
		query string
		want  [][]string
	}{
		{"同步服务", [][]string{{"同步"}, {"步服"}, {"服务"}}},
		{"คุณสมบัติ", [][]string{{"คุณ"}, {"ณส"}, {"สม"}, {"มบั"}, {"บัติ"}}},
		{"東", [][]string{{"東"}}},
		{"Plantilles 라이선스", [][]string{{"plantilles"}, {"라이"}, {"이선"}, {"선스"}}},
	} {
		groups, _, _, _ := x.readQuery(Query{Text: tc.query, Match: MatchAll})
		var got [][]string
		for _, g := range groups {
			got = append(got, g.terms)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: groups %q, want %q", tc.query, got, tc.want)
		}
	}
}
