package wire

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
)

// NewIdempotencyKey returns a random UUID (version 4) from crypto/rand.
// The generated code makes one per logical call and sends it on every
// attempt.
func NewIdempotencyKey() string {
	var u [16]byte
	rand.Read(u[:]) // never fails (crypto/rand, Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}

// NewIdempotencyKeyInt returns a random integer from lo to hi (lo <= hi),
// as decimal text, for an idempotency key header whose schema is an
// integer.
func NewIdempotencyKeyInt(lo, hi int64) string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	n := binary.LittleEndian.Uint64(b[:])
	if span := uint64(hi - lo); span < math.MaxUint64 {
		// The modulo bias is at most span/2^64: no key is noticeably likelier.
		n %= span + 1
	}
	return strconv.FormatInt(lo+int64(n), 10)
}
