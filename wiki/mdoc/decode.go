package mdoc

import (
	"bytes"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// The encodings [DecodeText] reports.
const (
	EncodingUTF8        = ""             // valid UTF-8 (a BOM allowed): shown as it is
	EncodingUTF16LE     = "utf-16le"     // BOM FF FE, or ASCII-heavy text with NUL at odd offsets
	EncodingUTF16BE     = "utf-16be"     // BOM FE FF, or NUL at even offsets
	EncodingUTF32LE     = "utf-32le"     // BOM FF FE 00 00
	EncodingUTF32BE     = "utf-32be"     // BOM 00 00 FE FF
	EncodingWindows1252 = "windows-1252" // not UTF-8, no NUL or control bytes: Latin-1 and its Windows superset
	// EncodingMixedUTF8 is UTF-8 with some bytes that are not (a cut or
	// damaged file, or Latin-1 text pasted in): those bytes are read as
	// Windows-1252, and the encoding is uncertain.
	EncodingMixedUTF8 = "utf-8+windows-1252"
)

// Decoded is a file's bytes as llmwiki shows, searches and checks them
// (see [Decode]): read_page, gather_sources, the search index and
// validate_structure all take a file's text from it.
type Decoded struct {
	// Text is the file as UTF-8 (nil for a binary file).
	Text []byte
	// Encoding is what Text was decoded from: "" for UTF-8, else one of
	// the Encoding constants or, when Uncertain, the guessed legacy
	// encoding ("euc-kr", "shift_jis", "gb18030", "big5", "windows-1251").
	Encoding string
	// Binary is set for data that is not text (NUL or control bytes).
	Binary bool
	// Uncertain is set when the encoding could not be known: the bytes are
	// not UTF-8, carry no byte order mark and do not look like
	// Windows-1252 text either (high bytes in runs, as CJK double-byte
	// encodings and Cyrillic or Greek code pages write them). Text is then
	// decoded with the likeliest encoding by the bytes' statistics (or
	// Windows-1252 when none fits), which may be wrong: say so wherever
	// the text is shown.
	Uncertain bool
}

// Note says what was done to the bytes to show them as text, for a note
// beside the text: "" for UTF-8 and binary data.
func (d Decoded) Note() string {
	switch {
	case d.Binary || d.Encoding == EncodingUTF8:
		return ""
	case d.Encoding == EncodingMixedUTF8:
		return "mostly UTF-8, but some bytes are not valid UTF-8 (a cut or damaged file, or text pasted from another encoding): those are shown as Windows-1252 characters, a guess; sha256 and size are of the bytes on disk"
	case d.Uncertain && d.Encoding == EncodingWindows1252:
		return "the encoding could not be determined (not UTF-8, no byte order mark, and the bytes do not look like Windows-1252 text): shown as windows-1252, so the text is likely garbled; convert the file to UTF-8 to read it; sha256 and size are of the bytes on disk"
	case d.Uncertain:
		return "the encoding could not be determined for certain (not UTF-8, no byte order mark): decoded as " + d.Encoding + ", the likeliest by its bytes, which may be wrong; if the text looks garbled, convert the file to UTF-8; sha256 and size are of the bytes on disk"
	}
	return "decoded from " + d.Encoding + " to UTF-8; sha256 and size are of the bytes on disk"
}

// DecodeText is [Decode] for callers that need only the text: ok is false
// for binary data.
func DecodeText(data []byte) (text []byte, enc string, ok bool) {
	d := Decode(data)
	return d.Text, d.Encoding, !d.Binary
}

// BOM is the UTF-8 byte order mark. A markdown file may start with one:
// [ParseDoc] reads past it and reports it, and a rewrite puts it back.
const BOM = "\xef\xbb\xbf"

// TrimBOM returns b without a leading UTF-8 byte order mark, and whether it
// had one.
func TrimBOM(b []byte) ([]byte, bool) {
	if bytes.HasPrefix(b, []byte(BOM)) {
		return b[len(BOM):], true
	}
	return b, false
}

// Decode turns a file's bytes into UTF-8 text when they are text in an
// encoding llmwiki can recognise, so tools show it decoded rather than
// dumping bytes or refusing it:
//
//   - valid UTF-8 without NUL or other control bytes: as it is (encoding "");
//   - UTF-32 or UTF-16 with a byte order mark, or UTF-16 without one whose
//     every other byte is NUL (ASCII-heavy text from Windows tools);
//   - anything else without NUL bytes or control bytes other than tab, line
//     feed, vertical tab, form feed, carriage return and escape:
//     Windows-1252 (which agrees with Latin-1 on every printable
//     character), unless the bytes do not look like it: then the encoding
//     is uncertain ([Decoded].Uncertain) and the text is decoded with the
//     likeliest legacy encoding (see [guessLegacy]).
//
// Binary data (NUL or other control bytes) is described, never shown. The
// text is always valid UTF-8 without NUL; sha256 and sizes stay those of
// the bytes on disk.
func Decode(data []byte) Decoded {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}):
		return decodeWith(data, utf32.UTF32(utf32.LittleEndian, utf32.ExpectBOM), EncodingUTF32LE)
	case bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		return decodeWith(data, utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM), EncodingUTF32BE)
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeWith(data, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), EncodingUTF16LE)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeWith(data, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), EncodingUTF16BE)
	}
	nul := bytes.IndexByte(data, 0) >= 0
	if !nul && utf8.Valid(data) {
		if hasControlBytes(data) {
			return Decoded{Binary: true}
		}
		return Decoded{Text: data, Encoding: EncodingUTF8}
	}
	if nul {
		if le, be := utf16Shape(data); le {
			return decodeWith(data, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), EncodingUTF16LE)
		} else if be {
			return decodeWith(data, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), EncodingUTF16BE)
		}
		return Decoded{Binary: true}
	}
	if hasControlBytes(data) {
		return Decoded{Binary: true}
	}
	if text, ok := mostlyUTF8(data); ok {
		return Decoded{Text: text, Encoding: EncodingMixedUTF8, Uncertain: true}
	}
	if name, e, uncertain := guessLegacy(data); uncertain {
		if e != nil {
			if d := decodeWith(data, e, name); !d.Binary && replacementShare(d.Text) <= maxReplacementShare {
				d.Uncertain = true
				return d
			}
		}
		d := decodeWith(data, charmap.Windows1252, EncodingWindows1252)
		d.Uncertain = !d.Binary
		return d
	}
	return decodeWith(data, charmap.Windows1252, EncodingWindows1252)
}

// mostlyUTF8 reads data that is not valid UTF-8 but has at least twice as
// many valid multi-byte sequences as invalid bytes as UTF-8, each invalid
// byte as its Windows-1252 character. Text in a legacy encoding makes valid
// sequences only by accident: CP949, Shift_JIS, GBK and Big5 samples have
// about half as many as invalid bytes, Latin-1 and Cyrillic ones none.
func mostlyUTF8(data []byte) ([]byte, bool) {
	valid, bad := 0, 0
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			bad++
			i++
			continue
		}
		valid++
		i += n
	}
	if valid < 2*bad || valid == 0 {
		return nil, false
	}
	out := make([]byte, 0, len(data)+2*bad)
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			out = utf8.AppendRune(out, charmap.Windows1252.DecodeByte(data[i]))
			i++
			continue
		}
		out = append(out, data[i:i+n]...)
		i += n
	}
	return out, true
}

// legacySample is how much of a file [guessLegacy] looks at, in bytes.
const legacySample = 64 << 10

// maxReplacementShare is the largest share of U+FFFD in a text decoded
// with a guessed encoding for the guess to stand: more says the bytes are
// not in that encoding.
const maxReplacementShare = 0.01

// legacyEncodings are the legacy encodings a guess may name, by the names
// the detector gives, with the names llmwiki reports. Latin ones decode as
// Windows-1252, their superset or nearest kin that llmwiki assumes.
var legacyEncodings = map[string]struct {
	name string
	enc  encoding.Encoding
}{
	"EUC-KR":       {"euc-kr", korean.EUCKR}, // x/text's EUC-KR is CP949, its superset
	"Shift_JIS":    {"shift_jis", japanese.ShiftJIS},
	"EUC-JP":       {"euc-jp", japanese.EUCJP},
	"GB18030":      {"gb18030", simplifiedchinese.GB18030},
	"Big5":         {"big5", traditionalchinese.Big5},
	"windows-1251": {"windows-1251", charmap.Windows1251},
	"KOI8-R":       {"koi8-r", charmap.KOI8R},
	"ISO-8859-5":   {"iso-8859-5", charmap.ISO8859_5},
	"windows-1256": {"windows-1256", charmap.Windows1256},
	"ISO-8859-6":   {"iso-8859-6", charmap.ISO8859_6},
	"ISO-8859-7":   {"iso-8859-7", charmap.ISO8859_7},
	"windows-1253": {"windows-1253", charmap.Windows1253},
	"ISO-8859-8":   {"iso-8859-8", charmap.ISO8859_8},
	"ISO-8859-8-I": {"iso-8859-8", charmap.ISO8859_8},
	"windows-1255": {"windows-1255", charmap.Windows1255},
	"ISO-8859-2":   {"iso-8859-2", charmap.ISO8859_2},
	"windows-1250": {"windows-1250", charmap.Windows1250},
	"ISO-8859-9":   {"windows-1254", charmap.Windows1254},
	"windows-1254": {"windows-1254", charmap.Windows1254},
	"ISO-8859-1":   {EncodingWindows1252, charmap.Windows1252},
	"windows-1252": {EncodingWindows1252, charmap.Windows1252},
}

// multiByte are the detector's CJK double-byte encodings: a confident
// answer of one of them outweighs the Windows-1252 default.
var multiByte = map[string]bool{"EUC-KR": true, "Shift_JIS": true, "EUC-JP": true, "GB18030": true, "Big5": true}

// guessLegacy decides whether bytes that are neither UTF-8 nor UTF-16/32
// may be taken as Windows-1252 (uncertain false), or their encoding cannot
// be known (uncertain true): a CJK double-byte encoding that the detector
// (ICU's statistics, github.com/gogs/chardet) names with confidence 50 or
// more, or high bytes mostly in runs of three or more, which Western text
// never writes (its accented letters stand alone or in pairs like "çã")
// but CJK, Cyrillic, Greek or Hebrew text does. Then name and e are the
// likeliest decodable encoding the detector names (e nil when none).
func guessLegacy(data []byte) (name string, e encoding.Encoding, uncertain bool) {
	sample := data
	if len(sample) > legacySample {
		sample = sample[:legacySample]
	}
	results, _ := chardet.NewTextDetector().DetectAll(sample)
	for _, r := range results {
		if multiByte[r.Charset] && r.Confidence >= 50 {
			uncertain = true
			break
		}
	}
	if !uncertain && westernShape(sample) {
		return "", nil, false
	}
	for _, r := range results {
		if le, ok := legacyEncodings[r.Charset]; ok {
			return le.name, le.enc, true
		}
	}
	return "", nil, true
}

// westernShape reports bytes whose high bytes (0x80 and up) mostly stand
// alone or in pairs: fewer than half of them are in runs of three or more.
func westernShape(data []byte) bool {
	high, inRuns, run := 0, 0, 0
	for i := 0; i <= len(data); i++ {
		if i < len(data) && data[i] >= 0x80 {
			high++
			run++
			continue
		}
		if run >= 3 {
			inRuns += run
		}
		run = 0
	}
	return inRuns*2 < high
}

// replacementShare is the share of U+FFFD among the runes of text.
func replacementShare(text []byte) float64 {
	n, bad := 0, 0
	for _, r := range string(text) {
		n++
		if r == utf8.RuneError {
			bad++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(bad) / float64(n)
}

// hasControlBytes reports C0 control bytes other than tab, line feed,
// vertical tab, form feed, carriage return and escape: text does not have
// them.
func hasControlBytes(data []byte) bool {
	for _, c := range data {
		if controlByte[c] {
			return true
		}
	}
	return false
}

// controlByte marks the bytes [hasControlBytes] looks for (a table: every
// page read, catalogued and indexed goes through it).
var controlByte = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b
	}
	return t
}()

func decodeWith(data []byte, e encoding.Encoding, name string) Decoded {
	out, err := e.NewDecoder().Bytes(data)
	if err != nil || !utf8.Valid(out) || bytes.IndexByte(out, 0) >= 0 {
		return Decoded{Binary: true}
	}
	return Decoded{Text: out, Encoding: name}
}

// utf16Shape reports text that looks like BOM-less UTF-16: an even length
// and NUL bytes at (nearly) every odd offset (little-endian) or even offset
// (big-endian), and none on the other side.
func utf16Shape(data []byte) (le, be bool) {
	if len(data) < 4 || len(data)%2 != 0 {
		return false, false
	}
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	var even, odd int
	for i, c := range head {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	half := len(head) / 2
	return odd*10 >= half*9 && even == 0, even*10 >= half*9 && odd == 0
}
