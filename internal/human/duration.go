// Package human writes values the way people write them in specs and
// reviews. The generator's doc comments, `resgen explain` and the
// warnings all use it, so one value reads the same everywhere.
package human

import (
	"strconv"
	"time"
)

// Duration writes d as a person would, without zero units: 1m, 1h30m,
// 1h30s, 1.5s, 2m30s, 500ms (time.Duration.String gives 1m0s and 1h0m0s).
// The text still parses with time.ParseDuration to d.
func Duration(d time.Duration) string {
	if d > -time.Second && d < time.Second {
		// 0s, 500ms, 1.5µs: String has no zero units below a second.
		return d.String()
	}
	var b []byte
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u
	}
	if h := u / uint64(time.Hour); h > 0 {
		b = strconv.AppendUint(b, h, 10)
		b = append(b, 'h')
		u -= h * uint64(time.Hour)
	}
	if m := u / uint64(time.Minute); m > 0 {
		b = strconv.AppendUint(b, m, 10)
		b = append(b, 'm')
		u -= m * uint64(time.Minute)
	}
	if u > 0 {
		// Under a minute: String writes 30s, 1.5s or 500ms.
		b = append(b, time.Duration(u).String()...)
	}
	return string(b)
}
