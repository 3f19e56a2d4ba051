package runtime

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// sseEvents parses body as text/event-stream, read one byte at a time as
// well as whole, and returns its events and the error that ended it.
func sseEvents(t *testing.T, body string, max int) ([]rawEvent, error) {
	t.Helper()
	var first []rawEvent
	var firstErr error
	for i, r := range []io.Reader{strings.NewReader(body), iotest.OneByteReader(strings.NewReader(body))} {
		p := sseParser{lr: newLineReader(r, max)}
		var evs []rawEvent
		var id string
		var err error
		for {
			var ev rawEvent
			if ev, err = p.next(&id); err != nil {
				break
			}
			ev.data = []byte(string(ev.data)) // valid until the next event only
			evs = append(evs, ev)
		}
		if i == 0 {
			first, firstErr = evs, err
		} else if !reflect.DeepEqual(evs, first) || (err == nil) != (firstErr == nil) {
			t.Errorf("%q read a byte at a time: %+v, %v; whole: %+v, %v", body, evs, err, first, firstErr)
		}
	}
	return first, firstErr
}

// The parser reads the event stream as the WHATWG spec says.
func TestSSEParsing(t *testing.T) {
	ev := func(data, id, event string, retry time.Duration) rawEvent {
		return rawEvent{data: []byte(data), id: id, hasID: id != "", event: event, retry: retry}
	}
	for _, c := range []struct {
		name, body string
		want       []rawEvent
	}{
		{"data lines join with LF", "data: a\ndata: b\n\n", []rawEvent{ev("a\nb", "", "", 0)}},
		{"one leading space goes", "data:a\ndata:  b\n\n", []rawEvent{ev("a\n b", "", "", 0)}},
		{"comments are ignored", ": hi\ndata: x\n: there\n\n", []rawEvent{ev("x", "", "", 0)}},
		{"CRLF", "data: a\r\ndata: b\r\n\r\n", []rawEvent{ev("a\nb", "", "", 0)}},
		{"CR", "data: a\rdata: b\r\rdata: c\r\r", []rawEvent{ev("a\nb", "", "", 0), ev("c", "", "", 0)}},
		{"BOM", "\xEF\xBB\xBFdata: a\n\n", []rawEvent{ev("a", "", "", 0)}},
		{"only the first BOM", "\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n", []rawEvent{ev("a", "", "", 0)}},
		{"id, event, retry", "id: 7\nevent: tick\nretry: 1500\ndata: {}\n\n", []rawEvent{ev("{}", "7", "tick", 1500*time.Millisecond)}},
		{"bad retry ignored", "retry: 1s\ndata: x\n\n", []rawEvent{ev("x", "", "", 0)}},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []rawEvent{ev("x", "", "", 0)}},
		{"a field without colon", "data\n\ndata\ndata\n\n", []rawEvent{ev("", "", "", 0), ev("\n", "", "", 0)}},
		{"no data, no event", "id: 1\nevent: e\n\ndata: x\n\n", []rawEvent{ev("x", "", "", 0)}},
		{"unknown fields ignored", "foo: bar\ndata: x\n\n", []rawEvent{ev("x", "", "", 0)}},
		{"blank lines between", "\n\n\ndata: x\n\n\n", []rawEvent{ev("x", "", "", 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sseEvents(t, c.body, 1<<10)
			if err != io.EOF {
				t.Errorf("ended with %v; want io.EOF", err)
			}
			if len(got) == 0 && len(c.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if _, err := sseEvents(t, "data: a\n\ndata: cut", 1<<10); err != errPartialEvent {
		t.Errorf("a body ending inside an event: %v; want errPartialEvent", err)
	}
	if _, err := sseEvents(t, "data: a\n\ndata: b\n", 1<<10); err != errPartialEvent {
		t.Errorf("a body ending before the blank line: %v; want errPartialEvent", err)
	}
	var big *EventTooLargeError
	if _, err := sseEvents(t, "data: "+strings.Repeat("x", 200)+"\n\n", 100); !errors.As(err, &big) || big.Limit != 100 {
		t.Errorf("an event over its cap: %v; want an EventTooLargeError", err)
	}
	if _, err := sseEvents(t, strings.Repeat("data: xxxxxxxx\n", 20)+"\n", 100); !errors.As(err, &big) {
		t.Errorf("an event of many short lines over its cap: %v; want an EventTooLargeError", err)
	}
	if evs, err := sseEvents(t, strings.Repeat("data: xxxxxxxx\n\n", 200), 100); err != io.EOF || len(evs) != 200 {
		t.Errorf("many events each under the cap: %d events, %v; want 200 and io.EOF", len(evs), err)
	}
}

// JSON lines: blank lines are skipped, the last line may lack its end.
func TestJSONLines(t *testing.T) {
	body := "{\"a\":1}\n\n  \r\n{\"a\":2}\r\n{\"a\":3}"
	for _, r := range []io.Reader{strings.NewReader(body), iotest.OneByteReader(strings.NewReader(body))} {
		lr := newLineReader(r, 100)
		var got []string
		for {
			line, err := nextLine(lr)
			if err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				break
			}
			got = append(got, string(line))
		}
		if want := []string{`{"a":1}`, `{"a":2}`, `{"a":3}`}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q; want %q", got, want)
		}
	}
}

// FuzzSSE: any body parses without a panic, to the same events whether it
// comes whole or a byte at a time, and no event is over the cap.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "\xEF\xBB\xBFid: 1\r\ndata\r\r", ": c\nretry: 10\nevent: e\ndata: x\ndata: y\n\n", "data: cut"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		evs, err := sseEvents(t, body, 64)
		var big *EventTooLargeError
		if err != io.EOF && err != errPartialEvent && !errors.As(err, &big) {
			t.Fatalf("%q: ended with %v", body, err)
		}
		for _, ev := range evs {
			if len(ev.data) > 64 {
				t.Fatalf("%q: an event of %d bytes over the cap of 64", body, len(ev.data))
			}
		}
	})
}
