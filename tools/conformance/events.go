package conformance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/model"
)

// Event streams (text/event-stream, JSON lines) are answered with several
// events, each an instance of the event schema (the union's variants in
// turn), which the driver reads through the response's Events method: each
// event's data must re-encode as sent, with its id, event and retry fields.

// sentEvent is one event the server sends.
type sentEvent struct {
	data  any    // the instance
	text  string // its data as sent (JSON, or a string's text)
	id    string
	event string
	retry int64 // milliseconds, 0 for none
}

// eventsPerAnswer is how many events a stream answer holds: enough for
// each of a few union variants, and for the fields to vary.
const eventsPerAnswer = 5

// eventSchema is the schema of one event's data (as resgen's eventType
// reads it): OpenAPI 3.2's itemSchema (an SSE event object's data
// property, by its contentSchema), else the media type's schema.
func eventSchema(mt *openapi3.MediaType, enc model.ResponseEncoding) *openapi3.SchemaRef {
	ref := mt.Schema
	if mt.ItemSchema != nil {
		ref = mt.ItemSchema
		if s := ref.Value; enc == model.ResponseSSE && s != nil && s.Properties["data"] != nil {
			ref = s.Properties["data"]
			if d := ref.Value; d != nil && d.ContentSchema != nil {
				ref = d.ContentSchema
			}
		}
	}
	return ref
}

// textEvents reports whether the events' Go type is string: the data is
// sent and compared as text, not JSON.
func textEvents(r *model.Response) bool {
	t := r.Type
	for t != nil && t.Kind == model.Pointer {
		t = t.Elem
	}
	return t != nil && t.Kind == model.Builtin && t.Name == "string"
}

// eventsAnswer answers with a stream of events of r's schema.
func (p *planner) eventsAnswer(r *model.Response, kr *openapi3.Response, mt *openapi3.MediaType, code, seed int) answer {
	a := answer{what: "status " + r.Status + " events", status: r.Status, code: code, ct: r.ContentType, field: r.FieldName, events: "jsonl"}
	if r.Encoding == model.ResponseSSE {
		a.events = "sse"
	}
	if kr != nil {
		a.headers, a.headerVals, a.gaps = p.responseHeaders(kr)
	}
	if mt == nil {
		a.err = fmt.Errorf("the oracle declares no %s content", r.ContentType)
		return a
	}
	ref := eventSchema(mt, r.Encoding)
	variants := 1
	if ref != nil && ref.Value != nil {
		variants = max(1, len(unionOf(ref.Value)))
	}
	text := textEvents(r)
	var evs []sentEvent
	for j := range eventsPerAnswer {
		v, err := p.instance(ref, seed+j, j%variants, false, inJSON)
		if err != nil {
			a.err = err
			return a
		}
		ev := sentEvent{data: v}
		if _, ok := v.(string); !ok && text {
			// A string type holds the data's text as sent: its JSON.
			data, _ := json.Marshal(v)
			v = string(data)
		}
		if s, ok := v.(string); ok && text {
			// SSE carries no CR in a data line; a line feed splits the
			// text over data lines, which the client joins again.
			s = strings.ReplaceAll(s, "\r", "")
			if j%2 == 1 && p.precheck(ref.Value, s+"\nline two") == nil {
				s += "\nline two"
			}
			ev.data, ev.text = s, s
		} else {
			data, err := json.Marshal(v)
			if err != nil {
				a.err = err
				return a
			}
			ev.text = string(data)
		}
		if a.events == "sse" {
			ev.id = fmt.Sprintf("%d-%d", seed, j+1)
			if j%2 == 0 {
				ev.event = "update"
			}
			if j == 0 {
				ev.retry = 1500
			}
		}
		evs = append(evs, ev)
	}
	a.body = eventsBody(a.events, evs, r.ContentType)
	a.value = evs
	return a
}

// eventsBody writes the events as framed: SSE with a comment, a retry and
// multi-line data; JSON lines one a line (application/x-ndjson without
// the last line's end, which the last line may lack).
func eventsBody(framing string, evs []sentEvent, ct string) []byte {
	var b strings.Builder
	if framing == "sse" {
		b.WriteString(": the stream starts\n\n")
		for _, ev := range evs {
			if ev.id != "" {
				b.WriteString("id: " + ev.id + "\n")
			}
			if ev.event != "" {
				b.WriteString("event: " + ev.event + "\n")
			}
			if ev.retry > 0 {
				b.WriteString("retry: " + strconv.FormatInt(ev.retry, 10) + "\n")
			}
			for _, line := range strings.Split(ev.text, "\n") {
				b.WriteString("data: " + line + "\n")
			}
			b.WriteString("\n")
		}
		return []byte(b.String())
	}
	for i, ev := range evs {
		b.WriteString(ev.text)
		if i < len(evs)-1 || mediaBase(ct) != "application/x-ndjson" {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// gotEvent is one event as the driver read it.
type gotEvent struct {
	Data  rawJSON `json:"data"`
	ID    string  `json:"id,omitempty"`
	Event string  `json:"event,omitempty"`
	Retry int64   `json:"retry,omitempty"` // milliseconds
}

// judgeEvents compares the events the driver read with the ones sent.
func judgeEvents(rep *Report, c *call, dr driverResult, add func(kind, detail string), addAt func(kind, detail string, at *place)) {
	rep.Checked++
	sent, _ := c.respValue.([]sentEvent)
	if dr.FieldNil {
		add("decode", fmt.Sprintf("%s stayed nil after a %d answer of %d events", c.field, c.status, len(sent)))
		return
	}
	rep.Decoded++
	rep.Streams.Judged++
	ok := true
	if len(dr.Events) != len(sent) {
		add("roundtrip", fmt.Sprintf("Events yielded %d events; the %d answer sent %d", len(dr.Events), c.status, len(sent)))
		ok = false
	}
	for i := range min(len(dr.Events), len(sent)) {
		got, want := dr.Events[i], sent[i]
		if got.ID != want.id || got.Event != want.event || got.Retry != want.retry {
			add("roundtrip", fmt.Sprintf("event %d: id %q, event %q, retry %dms; sent id %q, event %q, retry %dms", i+1, got.ID, got.Event, got.Retry, want.id, want.event, want.retry))
			ok = false
		}
		v, err := decodeExact(got.Data)
		if err != nil {
			add("roundtrip", fmt.Sprintf("event %d: the driver printed invalid JSON: %v", i+1, err))
			ok = false
			continue
		}
		wantV := want.data
		if s, text := want.data.(string); text {
			wantV = s
		} else {
			wantV, _ = decodeExact([]byte(want.text))
		}
		for _, d := range jsonDiffs(wantV, v) {
			var at *place
			if d.path != "…" {
				at = &place{response: true, ptr: d.path}
			}
			addAt("roundtrip", fmt.Sprintf("event %d's data re-encodes differently from the one sent at %s: %s", i+1, d.where(), d.text), at)
			ok = false
		}
	}
	if ok {
		rep.RoundTripped++
	}
}
