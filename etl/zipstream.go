package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/flate"
)

// The local file header that starts each member of a zip archive
// (APPNOTE.TXT 4.3.7): an archive cut short has lost its central
// directory, but its members can be read from the front by these.
const (
	zipLocalSig        = 0x04034b50
	zipLocalHeaderSize = 30
	zipFlagEncrypted   = 0x0001
	zipFlagDescriptor  = 0x0008 // sizes follow the data, not in the header
	zipMethodStore     = 0
	zipMethodDeflate   = 8
)

// localZipMember returns the content of the trace member of an archive
// read from its local headers: the first .etl member, or the first member
// when none is found before a member whose size is not in its header.
func localZipMember(ra io.ReaderAt, size int64) (io.Reader, error) {
	var first io.Reader
	off := int64(0)
	for off+zipLocalHeaderSize <= size {
		var h [zipLocalHeaderSize]byte
		if _, err := ra.ReadAt(h[:], off); err != nil {
			break
		}
		le := binary.LittleEndian
		if le.Uint32(h[0:]) != zipLocalSig {
			break
		}
		flags, method := le.Uint16(h[6:]), le.Uint16(h[8:])
		csize := int64(le.Uint32(h[18:]))
		nameLen, extraLen := int64(le.Uint16(h[26:])), int64(le.Uint16(h[28:]))
		name := make([]byte, nameLen)
		if _, err := ra.ReadAt(name, off+zipLocalHeaderSize); err != nil {
			break
		}
		data := off + zipLocalHeaderSize + nameLen + extraLen
		known := flags&zipFlagDescriptor == 0 && csize != 0xFFFFFFFF
		length := size - data
		if known {
			length = min(length, csize)
		}
		isDir := strings.HasSuffix(string(name), "/")
		if !isDir && length >= 0 {
			member, err := zipContent(io.NewSectionReader(ra, data, max(length, 0)), flags, method)
			if err == nil {
				if strings.EqualFold(filepath.Ext(string(name)), ".etl") {
					return member, nil
				}
				if first == nil {
					first = member
				}
			}
		}
		if !known {
			break
		}
		off = data + csize
	}
	if first == nil {
		return nil, errors.New("no member found from the front of the archive")
	}
	return first, nil
}

// zipContent unwraps a member's stored bytes.
func zipContent(r io.Reader, flags, method uint16) (io.Reader, error) {
	if flags&zipFlagEncrypted != 0 {
		return nil, errors.New("encrypted member")
	}
	switch method {
	case zipMethodStore:
		return r, nil
	case zipMethodDeflate:
		return flate.NewReader(r), nil
	}
	return nil, fmt.Errorf("member compressed with method %d", method)
}
