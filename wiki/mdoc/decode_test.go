package mdoc

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// TestDecodeUncertainEncoding: text in a legacy encoding that is not
// Windows-1252 (CJK double-byte, Cyrillic) is marked uncertain and decoded
// with the likeliest encoding, never shown as Windows-1252 mojibake as if
// that were certain; Western text in Windows-1252 stays certain.
func TestDecodeUncertainEncoding(t *testing.T) {
	cases := []struct {
		name      string
		data      []byte
		enc       string
		uncertain bool
		text      string // "" = do not check
	}{
		{"cp949", wikitest.Encode(t, korean.EUCKR, wikitest.KoreanPage), "euc-kr", true, wikitest.KoreanPage},
		{"cp949 short", wikitest.Encode(t, korean.EUCKR, "압축 파일을 만들고 풉니다.\n"), "", true, ""},
		{"shift_jis", wikitest.Encode(t, japanese.ShiftJIS, "# tar\n\n> アーカイブを作成・展開します。\n\n- ファイルをまとめる:\n\n`tar cf target.tar file1`\n"), "shift_jis", true, ""},
		{"gbk", wikitest.Encode(t, simplifiedchinese.GBK, "# tar\n\n> 创建和解压归档文件。\n\n- 将文件打包:\n\n`tar cf 目标.tar 文件1`\n"), "gb18030", true, ""},
		{"big5", wikitest.Encode(t, traditionalchinese.Big5, "# tar\n\n> 建立和解壓縮封存檔案。\n\n- 將檔案打包:\n\n`tar cf 目標.tar 檔案1`\n"), "", true, ""},
		{"cp1251", wikitest.Encode(t, charmap.Windows1251, "# Привет\n\nЭто текст на русском языке, который закодирован в cp1251.\n"), "windows-1251", true, ""},
		{"latin1 french", wikitest.Encode(t, charmap.Windows1252, "# Café\n\nLe café est très bon à Noël, dit Müller. Ça va très bien, merci pour le thé.\n"), EncodingWindows1252, false, ""},
		{"cp1252 quotes", wikitest.Encode(t, charmap.Windows1252, "l’été, «déjà» — naïve café\n"), EncodingWindows1252, false, "l’été, «déjà» — naïve café\n"},
		{"portuguese", wikitest.Encode(t, charmap.Windows1252, "A informação e as ações da população não são sãs; a canção é de João.\n"), EncodingWindows1252, false, ""},
		{"utf-8 cut mid-character", []byte("# tar\n\n> アーカイブを作成・展開します。\xe3\x80"), EncodingMixedUTF8, true, "# tar\n\n> アーカイブを作成・展開します。ã€"},
		{"utf-8 with a latin-1 byte", []byte("Grüße aus Köln, caf\xe9\n"), EncodingMixedUTF8, true, "Grüße aus Köln, café\n"},
		{"danish german", wikitest.Encode(t, charmap.Windows1252, "Blåbærgrød og rødgrød med fløde. Größe, Übung, Äpfel, schön.\n"), EncodingWindows1252, false, ""},
	}
	for _, c := range cases {
		d := Decode(c.data)
		if d.Binary {
			t.Errorf("%s: binary", c.name)
			continue
		}
		if d.Uncertain != c.uncertain || (c.enc != "" && d.Encoding != c.enc) {
			t.Errorf("%s: encoding %q uncertain=%v, want %q uncertain=%v", c.name, d.Encoding, d.Uncertain, c.enc, c.uncertain)
		}
		if c.text != "" && string(d.Text) != c.text {
			t.Errorf("%s: text %q, want %q", c.name, d.Text, c.text)
		}
		note := d.Note()
		if c.uncertain && d.Encoding != EncodingMixedUTF8 && (!strings.Contains(note, "could not be determined") || !strings.Contains(note, d.Encoding)) {
			t.Errorf("%s: note %q does not say the encoding is a guess", c.name, note)
		}
		if d.Encoding == EncodingMixedUTF8 && !strings.Contains(note, "a guess") {
			t.Errorf("%s: note %q does not say the reading is a guess", c.name, note)
		}
		if !c.uncertain && strings.Contains(note, "could not be determined") {
			t.Errorf("%s: note %q", c.name, note)
		}
	}
}

// FuzzDecode: any bytes decode to valid UTF-8 without NUL, or are binary;
// an uncertain encoding is always named; decoding never panics (the
// detector runs on untrusted bytes).
func FuzzDecode(f *testing.F) {
	f.Add([]byte("plain text\n"))
	f.Add([]byte("caf\xe9\n"))
	f.Add(wikitest.Encode(f, korean.EUCKR, wikitest.KoreanPage))
	f.Add(wikitest.Encode(f, japanese.ShiftJIS, "アーカイブを作成"))
	f.Add([]byte{0xFF, 0xFE, 'a', 0})
	f.Add([]byte{0x1b, '$', 'B', 0x30, 0x21, 0x1b, '(', 'B', 0x80})
	f.Add([]byte("Grüße aus Köln, caf\xe9"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Decode(data)
		if d.Binary {
			if d.Text != nil || d.Uncertain {
				t.Fatalf("binary with text or uncertain: %+v", d)
			}
			return
		}
		if !utf8.Valid(d.Text) || bytes.IndexByte(d.Text, 0) >= 0 {
			t.Fatalf("text not valid UTF-8 or has NUL: %q", d.Text)
		}
		if d.Uncertain && d.Encoding == "" {
			t.Fatal("uncertain without an encoding")
		}
		if d.Encoding == EncodingUTF8 && !bytes.Equal(d.Text, data) {
			t.Fatal("UTF-8 text changed")
		}
	})
}
