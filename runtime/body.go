package runtime

import (
	"errors"
	"io"
	"net/http"
	"strconv"
)

// A generated method's answer (Call) is read inside its attempt, while
// the attempt's context still bounds it: a body that is reset or stalls
// past the attempt's timeout fails that attempt like a transport error or
// a timeout, so the retry policy may try again and the breaker counts a
// failure. Only a declared stream (io.ReadCloser) is handed over unread;
// impl.Operation.Do returns the body open, as before.
//
// Every buffered body has a cap: an undeclared status of 400 or more keeps
// at most 64 KiB (maxErrorBody, the rest is never read), a declared one at
// most DefaultMaxErrorBody (WithMaxErrorBody changes it), a status below
// 400 none unless WithMaxBody gives one. A body over its cap is a
// *BodyTooLargeError: the DecodeErr of the *StatusError, or the Err of the
// *DecodeError below 400; the rest of it is never read.

// DefaultMaxErrorBody is the most of a declared error answer's body (status
// 400 or more, default and 4XX/5XX included) a call reads to decode it.
const DefaultMaxErrorBody = 1 << 20

// WithMaxErrorBody caps the body of a declared error answer (status 400 or
// more) at n bytes instead of DefaultMaxErrorBody (n <= 0: the default).
// Given to the client's WithCallOptions it applies to every call.
func WithMaxErrorBody(n int) CallOption { return CallOption{kind: optMaxErrorBody, n: n} }

// WithMaxBody caps the body of an answer below 400 at n bytes (n <= 0: no
// cap, the default). A declared stream is not read and has no cap.
func WithMaxBody(n int) CallOption { return CallOption{kind: optMaxBody, n: n} }

// BodyTooLargeError says that an answer's body is longer than its cap: it
// was not decoded, and no more than the cap was read.
type BodyTooLargeError struct {
	StatusCode int
	// Limit is the cap in bytes.
	Limit int
}

func (e *BodyTooLargeError) Error() string {
	return "the body of the " + strconv.Itoa(e.StatusCode) + " answer is longer than its cap of " + strconv.Itoa(e.Limit) + " bytes"
}

// ErrEmptyBody is the Err of the *DecodeError of an answer below 400 whose
// spec declares a JSON body but which came without one.
var ErrEmptyBody = errors.New("the body is empty, but the spec declares one")

// bodyError is a body that failed while it was read: the attempt failed.
type bodyError struct {
	status int
	err    error
}

func (e *bodyError) Error() string {
	return "reading the body of the " + strconv.Itoa(e.status) + " answer: " + e.err.Error()
}

func (e *bodyError) Unwrap() error { return e.err }

// readAnswer reads resp's body into c as c.pl says, within the attempt
// (see above). It leaves a declared stream below 400 unread and returns
// false for it; otherwise it closes the body and returns true with the
// read's error, nil when the body came whole or was cut at its cap.
func (c *call) readAnswer(resp *http.Response) (bool, error) {
	status := resp.StatusCode
	dc := c.pl.lookup(status).by(resp.Header)
	var limit int
	excerpt := false // an undeclared error: its first 64 KiB, for the StatusError
	switch {
	case dc != nil && dc.how.handsOver() && status < 400:
		return false, nil
	case status >= 400 && (dc == nil || dc.how.handsOver()):
		limit, excerpt = maxErrorBody, true
	case status >= 400:
		limit = DefaultMaxErrorBody
		if c.maxErr > 0 {
			limit = c.maxErr
		}
	default:
		limit = c.maxBody
	}
	raw, over, err := readCapped(resp, c.op.spec.Method == http.MethodHead, limit)
	c.raw = raw
	if over && !excerpt {
		c.tooLarge = limit
	}
	if err != nil {
		return true, &bodyError{status: status, err: err}
	}
	return true, nil
}

// readCapped reads resp's body, at most limit bytes of it when limit > 0
// (over says it was longer), and closes it. A body cut at its cap has the
// rest drained, up to drainMax, so a short overrun leaves the connection
// reusable; a body whose Content-Length is over the cap is not read past
// the 64 KiB its error keeps (and drainMax more when that is all of it).
func readCapped(resp *http.Response, head bool, limit int) (raw []byte, over bool, err error) {
	defer resp.Body.Close()
	n := resp.ContentLength
	if head || resp.Body == http.NoBody { // a HEAD's Content-Length is the GET's
		return nil, false, nil
	}
	if n == 0 {
		// net/http gives a body of length 0 as NoBody: this one is a
		// Doer's own Response that left ContentLength unset.
		n = -1
	}
	if limit <= 0 || n > 0 && n <= int64(limit) {
		var r io.Reader = resp.Body
		if limit > 0 {
			r = io.LimitReader(r, int64(limit)+1)
		}
		raw, err = readBody(r, n)
		if limit > 0 && len(raw) > limit { // longer than it said
			raw, over = raw[:limit:limit], true
		}
		return raw, over, err
	}
	if n > int64(limit) {
		// Known to be over: only the excerpt a StatusError keeps.
		raw, err = io.ReadAll(io.LimitReader(resp.Body, int64(min(limit, maxErrorBody))))
		if err == nil && n-int64(len(raw)) <= drainMax {
			io.CopyN(io.Discard, resp.Body, drainMax) // a short rest: keep the connection
		}
		return raw, true, err
	}
	raw, err = io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err == nil && len(raw) > limit {
		raw, over = raw[:limit:limit], true
		io.CopyN(io.Discard, resp.Body, drainMax)
	}
	return raw, over, err
}
