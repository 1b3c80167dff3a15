package awsemu

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strings"
)

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// attributesMD5 is SQS's digest of message attributes (what clients check
// MD5OfMessageAttributes against): for each attribute, by name, the name,
// the data type and the value, each prefixed by its length as 4 bytes big
// endian, with a transport byte before the value (1 string, 2 binary).
// No attributes: "".
func attributesMD5(attrs map[string]MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	h := md5.New()
	field := func(b []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, n := range names {
		a := attrs[n]
		field([]byte(n))
		field([]byte(a.DataType))
		if strings.HasPrefix(a.DataType, "Binary") {
			h.Write([]byte{2})
			field(a.BinaryValue)
		} else {
			h.Write([]byte{1})
			field([]byte(a.StringValue))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
