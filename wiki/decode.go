package wiki

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
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
)

// DecodeText turns a file's bytes into UTF-8 text when they are text in
// an encoding llmwiki can recognise, so tools show it decoded rather than
// dumping bytes or refusing it:
//
//   - valid UTF-8 without NUL or other control bytes: as it is (encoding "");
//   - UTF-32 or UTF-16 with a byte order mark, or UTF-16 without one whose
//     every other byte is NUL (ASCII-heavy text from Windows tools);
//   - anything else without NUL bytes or control bytes other than tab, line
//     feed, vertical tab, form feed, carriage return and escape:
//     Windows-1252 (which
//     agrees with Latin-1 on every printable character).
//
// ok is false for binary data (NUL or other control bytes): describe it,
// never show it. The result is always valid UTF-8; sha256 and sizes stay
// those of the bytes on disk.
func DecodeText(data []byte) (text []byte, enc string, ok bool) {
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
			return nil, "", false
		}
		return data, EncodingUTF8, true
	}
	if nul {
		if le, be := utf16Shape(data); le {
			return decodeWith(data, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), EncodingUTF16LE)
		} else if be {
			return decodeWith(data, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), EncodingUTF16BE)
		}
		return nil, "", false
	}
	if hasControlBytes(data) {
		return nil, "", false
	}
	return decodeWith(data, charmap.Windows1252, EncodingWindows1252)
}

// hasControlBytes reports C0 control bytes other than tab, line feed,
// vertical tab, form feed, carriage return and escape: text does not have
// them.
func hasControlBytes(data []byte) bool {
	for _, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b {
			return true
		}
	}
	return false
}

func decodeWith(data []byte, e encoding.Encoding, name string) ([]byte, string, bool) {
	out, err := e.NewDecoder().Bytes(data)
	if err != nil || !utf8.Valid(out) || bytes.IndexByte(out, 0) >= 0 {
		return nil, "", false
	}
	return out, name, true
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
