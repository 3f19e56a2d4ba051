package runtime

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// The parsers of event streams: text/event-stream as the WHATWG HTML
// standard's "Interpreting an event stream" reads it (lines end in CRLF,
// LF or CR; a leading BOM is dropped; ":" starts a comment; data lines
// join with "\n"; an empty line dispatches), and JSON lines (one value a
// line, blank lines skipped). Both read through lineReader, which holds at
// most the event being read: an event over the stream's cap is an
// *EventTooLargeError, never an unbounded buffer.

// DefaultMaxEventSize is the most bytes of one event (its lines, SSE's
// field names included) a stream reads before it fails with an
// *EventTooLargeError; WithMaxEventSize changes it.
const DefaultMaxEventSize = 1 << 20

// WithMaxEventSize caps one event of a stream at n bytes instead of
// DefaultMaxEventSize (n <= 0: the default).
func WithMaxEventSize(n int) CallOption { return CallOption{kind: optMaxEventSize, n: n} }

// EventTooLargeError says that an event of a stream is longer than its cap;
// the stream ends with it.
type EventTooLargeError struct {
	// Limit is the cap in bytes.
	Limit int
}

func (e *EventTooLargeError) Error() string {
	return "an event of the stream is longer than its cap of " + strconv.Itoa(e.Limit) + " bytes"
}

// errPartialEvent is the error of a stream whose body ended cleanly inside
// an SSE event (no blank line after it): the spec drops such an event, but
// a caller must not take a cut stream for a whole one.
var errPartialEvent = errors.New("the stream ended inside an event")

// lineReader splits a body into lines ending in CRLF, LF or CR.
type lineReader struct {
	r      io.Reader
	buf    []byte
	start  int // buf[start:end] is read and not yet returned
	end    int
	skipLF bool // the last line ended in CR: a LF next belongs to it
	max    int  // the most bytes of buffered event (see used)
	used   int  // bytes of the current event returned so far
	err    error
	bom    bool // the BOM was looked for
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, min(4096, max+8)), max: max}
}

// line returns the next line without its end, valid until the next call.
// At the body's end it returns the unterminated rest (maybe empty) with
// the read's error (io.EOF when clean).
func (l *lineReader) line() ([]byte, error) {
	for {
		if l.skipLF && l.start < l.end {
			if l.buf[l.start] == '\n' {
				l.start++
			}
			l.skipLF = false
		}
		if b := l.buf[l.start:l.end]; !l.bom && len(b) > 0 && (len(b) >= 3 || !bytes.HasPrefix(bom, b)) {
			l.bom = true
			if bytes.HasPrefix(b, bom) {
				l.start += 3
			}
		}
		b := l.buf[l.start:l.end]
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			l.skipLF = b[i] == '\r'
			l.start += i + 1
			if l.used += i + 1; l.used > l.max {
				return nil, &EventTooLargeError{Limit: l.max}
			}
			return b[:i], nil
		}
		if l.err != nil {
			l.start = l.end
			return b, l.err
		}
		if l.used+len(b) > l.max {
			return nil, &EventTooLargeError{Limit: l.max}
		}
		l.fill()
	}
}

var bom = []byte("\xEF\xBB\xBF")

// fill reads more of the body, moving what is left to the front, growing
// the buffer while an event needs it.
func (l *lineReader) fill() {
	if l.start > 0 {
		l.end = copy(l.buf, l.buf[l.start:l.end])
		l.start = 0
	}
	if l.end == len(l.buf) {
		n := min(2*len(l.buf), l.max+8)
		l.buf = append(l.buf, make([]byte, n-len(l.buf))...)
	}
	n, err := l.r.Read(l.buf[l.end:])
	l.end += n
	if err != nil {
		l.err, l.bom = err, true
	}
}

// rawEvent is one event as read, before its data is decoded.
type rawEvent struct {
	data  []byte // valid until the next event
	id    string
	hasID bool
	event string
	retry time.Duration
}

// sseParser reads the events of a text/event-stream body.
type sseParser struct {
	lr    *lineReader
	data  []byte
	retry time.Duration // the last retry field: the reconnection time
}

// next returns the next event. lastID is the stream's last event ID
// buffer, which an id field sets even when no event is dispatched.
func (p *sseParser) next(lastID *string) (rawEvent, error) {
	var ev rawEvent
	p.data = p.data[:0]
	p.lr.used = 0
	any := false // a field was seen in this event
	for {
		line, err := p.lr.line()
		if err != nil {
			if err == io.EOF && (any || len(line) > 0) {
				err = errPartialEvent
			}
			return ev, err
		}
		if len(line) == 0 {
			if !any {
				p.lr.used = 0
				continue
			}
			if len(p.data) == 0 {
				// Only id, event or retry: no event, as the spec says.
				ev, any, p.lr.used = rawEvent{}, false, 0
				continue
			}
			ev.data = p.data[:len(p.data)-1] // the last "\n" goes
			return ev, nil
		}
		if line[0] == ':' {
			continue // a comment
		}
		any = true
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			p.data = append(append(p.data, value...), '\n')
		case "event":
			ev.event = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id, ev.hasID = string(value), true
				*lastID = ev.id
			}
		case "retry":
			if ms, ok := digits(value); ok {
				ev.retry = time.Duration(ms) * time.Millisecond
				p.retry = ev.retry
			}
		}
	}
}

// digits reads a retry field: ASCII digits only.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 12 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// nextLine returns the next non-blank line of a JSON-lines body; the last
// one may lack its line end.
func nextLine(lr *lineReader) ([]byte, error) {
	for {
		lr.used = 0
		line, err := lr.line()
		if len(bytes.TrimSpace(line)) > 0 {
			if err == io.EOF {
				err = nil
			}
			return line, err
		}
		if err != nil {
			return nil, err
		}
	}
}
