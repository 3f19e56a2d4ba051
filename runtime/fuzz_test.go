package runtime

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseRetryAfter: a Retry-After header is whatever a server sends.
// Whatever it is, parseRetryAfter must not panic, must never give a
// negative wait, must take delta-seconds exactly (saturating, never
// wrapping into negatives) and HTTP-dates to the second, and must refuse
// everything else. secs drives the round trips of both forms.
//
// make fuzz runs it; plain go test runs the seeds below and testdata/fuzz.
func FuzzParseRetryAfter(f *testing.F) {
	for _, v := range []string{
		"", " ", "0", "5", " 7 ", "007", "120\t", "-1", "+5", "1.5", "5s", "1e3", "0x10", "١٢",
		"9223372036", "9223372037", "9223372036854775807", "18446744073709551615", "99999999999999999999999",
		"99999999999999999999999x", "12 34",
		"Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 02 Jan 2026 03:04:15 UTC",
		"soon", "Wed, 21 Oct 2015 07:28:00",
	} {
		f.Add(v, int64(len(v)))
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string, secs int64) {
		d, ok := parseRetryAfter(v, now)
		if !ok && d != 0 {
			t.Fatalf("%q: not a Retry-After, yet a wait of %v", v, d)
		}
		if d < 0 {
			t.Fatalf("%q: negative wait %v", v, d)
		}
		tv := strings.TrimSpace(v)
		if tv != "" && strings.Trim(tv, "0123456789") == "" {
			// Delta-seconds: exact, or the longest wait when it does not fit.
			want := time.Duration(math.MaxInt64)
			if n, err := strconv.ParseUint(tv, 10, 64); err == nil && n <= math.MaxInt64/uint64(time.Second) {
				want = time.Duration(n) * time.Second
			}
			if !ok || d != want {
				t.Fatalf("%q: %v %v, want %v true", v, d, ok, want)
			}
		} else if ok {
			at, err := http.ParseTime(tv)
			if err != nil {
				t.Fatalf("%q: accepted, but it is neither delta-seconds nor an HTTP-date", v)
			}
			if want := max(at.Sub(now), 0); d != want {
				t.Fatalf("%q: %v, want %v", v, d, want)
			}
		}

		// Round trips: secs as delta-seconds, and now+secs (within a
		// century, so the year has four digits) as an IMF-fixdate.
		if secs >= 0 {
			want := time.Duration(math.MaxInt64)
			if secs <= math.MaxInt64/int64(time.Second) {
				want = time.Duration(secs) * time.Second
			}
			if d, ok := parseRetryAfter(strconv.FormatInt(secs, 10), now); !ok || d != want {
				t.Fatalf("delta-seconds %d: %v %v, want %v true", secs, d, ok, want)
			}
		}
		off := time.Duration(secs%(100*365*24*3600)) * time.Second
		date := now.Add(off).Format(http.TimeFormat)
		if d, ok := parseRetryAfter(date, now); !ok || d != max(off, 0) {
			t.Fatalf("HTTP-date %q: %v %v, want %v true", date, d, ok, max(off, 0))
		}
	})
}
