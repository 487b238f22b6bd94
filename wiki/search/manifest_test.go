package search

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	m := manifest{Schema: schemaVersion, IndexID: "abc123", Files: map[string]fileRec{
		"pages/a.md":      {Size: 12, MTime: 1700000000123456789, SHA: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Len: fieldLens{1, 2, 3, 4, -5}},
		"sources/bin.dat": {Size: 5 << 20, MTime: -1, Skipped: true},
		"pages/é/ü b.md":  {},
		"context.md":      {Size: 1, MTime: 2, SHA: "x", Len: fieldLens{2147483647, -2147483648}},
	}}
	got, err := decodeManifest(encodeManifest(&m))
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, m)
	}
	empty := manifest{Schema: schemaVersion, IndexID: "x", Files: map[string]fileRec{}}
	if got, err := decodeManifest(encodeManifest(&empty)); err != nil || !reflect.DeepEqual(got, empty) {
		t.Fatalf("empty: %v %+v", err, got)
	}
	// A manifest of the first encoding (gob) is still read.
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&m); err != nil {
		t.Fatal(err)
	}
	if got, err := decodeManifest(buf.Bytes()); err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("gob: %v %+v", err, got)
	}
	// Every truncation and a trailing byte are errors, never a panic.
	enc := encodeManifest(&m)
	for n := len(manifestMagic); n < len(enc); n++ {
		if _, err := decodeManifest(enc[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(enc))
		}
	}
	if _, err := decodeManifest(append(enc, 0)); err == nil {
		t.Fatal("a trailing byte: no error")
	}
}

func FuzzDecodeManifest(f *testing.F) {
	m := manifest{Schema: schemaVersion, IndexID: "id", Files: map[string]fileRec{"pages/a.md": {Size: 3, SHA: "s"}}}
	f.Add(encodeManifest(&m))
	f.Add([]byte(manifestMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeManifest(data)
		if err != nil || !bytes.HasPrefix(data, []byte(manifestMagic)) {
			return
		}
		again, err := decodeManifest(encodeManifest(&got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("re-encoding a decoded manifest: %v", err)
		}
	})
}
