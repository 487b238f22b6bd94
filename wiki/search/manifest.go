package search

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"math"
	"unsafe"
)

// manifestMagic begins a manifest in the compact encoding below. A
// manifest without it is read as gob (the first encoding, whose file name
// the manifest keeps), so an index built by an earlier version is not
// rebuilt for it.
const manifestMagic = "llmwiki-manifest-1\n"

// encodeManifest writes m compactly: the magic, then the schema and index
// id, the number of files and each file as its path, size, mtime, sha,
// skipped flag and field lengths (strings length-prefixed, numbers as
// varints), so a server's start decodes it far faster than gob would
// (docs/performance.md, "Figures moved out of code comments").
func encodeManifest(m *manifest) []byte {
	b := make([]byte, 0, 64+len(m.Files)*128)
	b = append(b, manifestMagic...)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(m.Schema)
	str(m.IndexID)
	b = binary.AppendUvarint(b, uint64(len(m.Files)))
	for p, r := range m.Files {
		str(p)
		b = binary.AppendVarint(b, r.Size)
		b = binary.AppendVarint(b, r.MTime)
		str(r.SHA)
		if r.Skipped {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		for _, n := range r.Len {
			b = binary.AppendVarint(b, int64(n))
		}
	}
	return b
}

var errManifest = errors.New("malformed search manifest")

// decodeManifest reads what encodeManifest wrote, or a gob manifest. It
// takes data over: the strings it returns share data's memory (a large
// wiki's manifest is megabytes, and a copy would cost a good part of the
// read), so the caller must never change data afterwards.
func decodeManifest(data []byte) (manifest, error) {
	var m manifest
	if !bytes.HasPrefix(data, []byte(manifestMagic)) {
		err := gob.NewDecoder(bytes.NewReader(data)).Decode(&m)
		return m, err
	}
	all := unsafe.String(unsafe.SliceData(data), len(data)) // every string below is a slice of it
	pos := len(manifestMagic)
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(data[pos:])
		if n <= 0 {
			bad = true
			return 0
		}
		pos += n
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(data[pos:])
		if n <= 0 {
			bad = true
			return 0
		}
		pos += n
		return v
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(all)-pos) {
			bad = true
			return ""
		}
		s := all[pos : pos+int(n)]
		pos += int(n)
		return s
	}
	m.Schema = str()
	m.IndexID = str()
	count := uv()
	if bad || count > uint64(len(all)-pos)/10 { // an entry takes at least 10 bytes
		return manifest{}, errManifest
	}
	m.Files = make(map[string]fileRec, count)
	for i := uint64(0); i < count && !bad; i++ {
		p := str()
		var r fileRec
		r.Size = sv()
		r.MTime = sv()
		r.SHA = str()
		if pos >= len(all) {
			bad = true
			break
		}
		r.Skipped = all[pos] == 1
		pos++
		for k := range r.Len {
			v := sv()
			if v < math.MinInt32 || v > math.MaxInt32 {
				bad = true
			}
			r.Len[k] = int32(v)
		}
		m.Files[p] = r
	}
	if bad || pos != len(all) {
		return manifest{}, errManifest
	}
	return m, nil
}
