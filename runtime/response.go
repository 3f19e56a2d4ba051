package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// Small helpers that keep each generated method short: reading the answer,
// decoding a declared body, and the error for an undeclared status.

// ReadBody reads the whole response body and closes it. Generated methods
// call it for declared statuses only, whose bodies may be large by right
// (a list, a document); an undeclared status goes to Operation.StatusError,
// which reads a bounded part.
func ReadBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// DecodeJSON decodes raw into a new T and points *dst at it once it has
// decoded (a JSON null gives the zero T, so a union decodes as empty); an
// empty body leaves *dst nil.
func DecodeJSON[T any](raw []byte, dst **T) error {
	if len(raw) == 0 {
		return nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// DecodeValue decodes raw into *dst, a slice, map or raw JSON field; an
// empty body leaves it nil.
func DecodeValue[T any](raw []byte, dst *T) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// Text returns raw as a string pointer, for text/plain bodies.
func Text(raw []byte) *string {
	s := string(raw)
	return &s
}

// JSONBody encodes *v as a request body; a nil v is no body. The reader is
// a *bytes.Reader, so the request can be re-sent whole on each attempt.
func JSONBody[T any](v *T) (io.Reader, error) {
	if v == nil {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

// maxErrorBody bounds the part of an undeclared answer's body kept in its
// StatusError.
const maxErrorBody = 64 << 10

// StatusError is the error for an answer whose status the spec does not
// declare. It reads at most the first 64 KiB of the body into the error,
// drains at most 64 KiB more so that a short body leaves the connection
// reusable (a longer one is closed unread), and closes the body: a huge
// error body never reaches memory. The URL is redacted (see redact.go).
func (op *Operation) StatusError(req *http.Request, resp *http.Response, attempts int) *StatusError {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	io.CopyN(io.Discard, resp.Body, drainMax)
	resp.Body.Close()
	return &StatusError{Method: req.Method, URL: op.e.redact.url(req.URL), StatusCode: resp.StatusCode, Header: resp.Header, Body: raw, Attempts: attempts}
}

// HeaderValue returns the first value of a response header, nil when the
// answer lacks it.
func HeaderValue(h http.Header, name string) *string {
	if v := h.Values(name); len(v) > 0 {
		return &v[0]
	}
	return nil
}
