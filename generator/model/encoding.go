package model

// BodyEncoding is how a request body is written.
type BodyEncoding uint8

const (
	// BodyJSON: the value, encoded as JSON by the runtime.
	BodyJSON BodyEncoding = iota
	// BodyForm: a url.Values, encoded.
	BodyForm
	// BodyFormTyped: a struct, written as form fields by its JSON form.
	BodyFormTyped
	// BodyMultipart: a multipart io.Reader the caller encodes, with its
	// Content-Type (boundary included), streamed.
	BodyMultipart
	// BodyMultipartFields: a struct, a part per field (Body.Parts).
	BodyMultipartFields
	// BodyText: a string.
	BodyText
	// BodyBytes: an io.Reader, streamed as it is.
	BodyBytes
	// BodyRaw: the caller's io.Reader with the caller's content type,
	// streamed.
	BodyRaw
)

var bodyEncodings = [...]string{"json", "form", "form-typed", "multipart", "multipart-fields", "text", "bytes", "raw"}

// String is the encoding's name: json, form, form-typed, multipart,
// multipart-fields, text, bytes or raw.
func (e BodyEncoding) String() string { return nameOf(bodyEncodings[:], e) }

// ResponseEncoding is how a response body is read.
type ResponseEncoding uint8

const (
	// ResponseNone: the body is not decoded.
	ResponseNone ResponseEncoding = iota
	// ResponseJSON: decoded into the response's field.
	ResponseJSON
	// ResponseText: a string in the response's field.
	ResponseText
	// ResponseStream: handed to the caller unread.
	ResponseStream
	// ResponseSSE: server-sent events (text/event-stream), read as the
	// caller ranges over them, each event's data decoded into Type.
	ResponseSSE
	// ResponseJSONL: JSON values one a line (application/jsonl,
	// application/x-ndjson), each decoded into Type as it is read.
	ResponseJSONL
)

var responseEncodings = [...]string{"", "json", "text", "stream", "sse", "jsonl"}

// String is the encoding's name: json, text, stream, sse, jsonl, or ""
// for none. sse and jsonl are also the runtime's tag modes.
func (e ResponseEncoding) String() string { return nameOf(responseEncodings[:], e) }

// Style is a parameter's or form property's serialization style, as
// OpenAPI names it.
type Style uint8

const (
	// StyleUnset: the spec names none; the runtime writes the default of
	// where the value goes (form in a query or cookie, simple elsewhere).
	StyleUnset Style = iota
	StyleForm
	StyleSimple
	StyleLabel
	StyleMatrix
	StyleSpaceDelimited
	StylePipeDelimited
	StyleDeepObject
)

var styles = [...]string{"", "form", "simple", "label", "matrix", "spaceDelimited", "pipeDelimited", "deepObject"}

// String is the style's name in OpenAPI, the text the runtime takes; ""
// for StyleUnset.
func (s Style) String() string { return nameOf(styles[:], s) }

// StyleOf is the style OpenAPI names name, and false for a name it does
// not define.
func StyleOf(name string) (Style, bool) {
	for i, n := range styles {
		if n == name {
			return Style(i), true
		}
	}
	return StyleUnset, false
}

// nameOf is the name of enum value v in names, or "?" past their end.
func nameOf[E ~uint8](names []string, v E) string {
	if int(v) < len(names) {
		return names[v]
	}
	return "?"
}

// Events reports whether e is a typed event stream (sse or jsonl).
func (e ResponseEncoding) Events() bool { return e == ResponseSSE || e == ResponseJSONL }
