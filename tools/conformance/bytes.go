package conformance

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/model"
)

// Bodies a client hands over or takes as bytes (downloads, binary
// uploads, file parts) are judged byte for byte: they carry every octet,
// a NUL, CR LF pairs, a multipart delimiter, invalid UTF-8, and run past
// the 32 KiB buffers io.Copy and bufio use, so that a client that drops,
// adds, re-encodes or re-reads bytes shows.

// fileBytes is an opaque body of the call of that seed: 70,001 bytes that
// start with every byte value and differ by seed.
func fileBytes(seed int) []byte {
	var b bytes.Buffer
	b.Grow(70_001)
	for i := range 256 {
		b.WriteByte(byte(i))
	}
	b.WriteString("\r\n--boundary\r\nContent-Type: text/plain\r\n\r\ndata: é\n\n\xff\xfe")
	b.WriteString("seed " + strconv.Itoa(seed))
	for i := 0; b.Len() < 70_000; i++ {
		b.WriteByte(byte(i*31 + seed))
	}
	b.WriteByte('\n') // a last byte that a reader trimming lines loses
	return b.Bytes()
}

// opaqueSchema reports whether a body of schema ref is any bytes: no
// schema, format binary, or a schema that constrains nothing.
func opaqueSchema(ref *openapi3.SchemaRef) bool {
	if ref == nil || ref.Value == nil {
		return true
	}
	s := ref.Value
	if (s.Format == "binary" || s.ContentEncoding == "binary") && (s.Type == nil || s.Type.Is("string")) {
		return true
	}
	return s.Type == nil && s.Format == "" && len(s.Properties) == 0 && len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) == 0 &&
		s.Not == nil && len(s.Enum) == 0 && s.Items == nil && s.Pattern == "" && s.MinLength == 0 && s.MaxLength == nil
}

// downloadAnswer answers with a body the client hands over unread
// (Stream): opaque bytes, or an instance of a typed schema written as the
// media type says.
func (p *planner) downloadAnswer(r *model.Response, kr *openapi3.Response, mt *openapi3.MediaType, code, seed int) answer {
	a := answer{what: "status " + r.Status + " download", status: r.Status, code: code, ct: r.ContentType, field: "Stream", download: true}
	if kr != nil {
		a.headers, a.headerVals, a.gaps = p.responseHeaders(kr)
	}
	if mt == nil || opaqueSchema(mt.Schema) {
		a.body = fileBytes(seed)
		a.value = a.body
		dec := bodyDecoder(mediaBase(concreteType(r.ContentType)))
		if mt == nil || dec == nil {
			return a
		}
		if _, err := dec(bytes.NewReader(a.body), http.Header{"Content-Type": {r.ContentType}}, mt.Schema, func(string) *openapi3.Encoding { return nil }); err == nil {
			return a
		}
		// A type kin-openapi reads (text/csv) takes bytes of its kind.
	}
	// A typed document: an instance written as the media type says, one
	// that kin-openapi (which judges the answer) reads back where it can
	// (adversarial text is no valid CSV).
	send := concreteType(r.ContentType)
	for try := range 6 {
		v, err := p.instance(mt.Schema, seed+try*7, 0, false, inJSON)
		var data []byte
		var header string
		if err == nil {
			data, header, err = encodeAs(send, v, mt)
		}
		if err == nil {
			if dec := bodyDecoder(mediaBase(header)); dec != nil {
				_, err = dec(bytes.NewReader(data), http.Header{"Content-Type": {header}}, mt.Schema, func(string) *openapi3.Encoding { return nil })
			}
		}
		if a.err = err; err != nil {
			continue
		}
		if header != send {
			a.ct = header // a multipart boundary
		}
		a.body, a.value = data, data
		break
	}
	return a
}

// bytesDiff says where got differs from want ("" when equal).
func bytesDiff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	around := func(b []byte) string {
		lo, hi := max(0, i-8), min(len(b), i+8)
		return strconv.Quote(string(b[lo:hi]))
	}
	return fmt.Sprintf("%d bytes, %d intended; they differ first at byte %d (%s, intended %s)", len(got), len(want), i, around(got), around(want))
}

// judgeDownload compares the bytes the driver read from the Stream field
// with the answer's, byte for byte.
func judgeDownload(rep *Report, c *call, dr driverResult, add func(kind, detail string)) {
	rep.Checked++
	if dr.FieldNil {
		add("decode", fmt.Sprintf("%s stayed nil after a %d answer of %d bytes", c.field, c.status, len(c.respBody)))
		return
	}
	rep.Decoded++
	rep.Downloads.Judged++
	if d := bytesDiff(c.respBody, dr.Bytes); d != "" {
		add("roundtrip", fmt.Sprintf("%s read whole differs from the %d answer: %s", c.field, c.status, d))
		return
	}
	rep.RoundTripped++
}

// withFiles puts opaque bytes in each file part (a *runtime.File field of
// b, or a list of them) of a multipart body's value v: the intended body
// holds them as strings (what kin-openapi decodes a file part to), c.files
// as bytes (what checkFileParts compares), and the value the driver gets
// as {"base64": ...} (JSON text cannot carry invalid UTF-8).
func withFiles(c *call, b *model.Body, v any, seed int) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	files := map[string]bool{}
	for _, p := range b.Parts {
		if p.Field != nil && (p.Kind == model.PartFile || p.Kind == model.PartFiles) {
			files[cmp.Or(p.Field.WireName, p.Field.JSONName)] = true
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	plan := make(map[string]any, len(m))
	for i, k := range keys {
		plan[k] = m[k]
		if !files[k] {
			continue
		}
		file := func(j int) ([]byte, any) {
			data := fileBytes(seed*17 + i*5 + j)
			return data, map[string]any{"base64": base64.StdEncoding.EncodeToString(data)}
		}
		if c.files == nil {
			c.files = map[string][][]byte{}
		}
		c.upload = true
		switch x := m[k].(type) {
		case []any:
			items, planItems := make([]any, len(x)), make([]any, len(x))
			for j := range x {
				data, pv := file(j)
				items[j], planItems[j] = string(data), pv
				c.files[k] = append(c.files[k], data)
			}
			m[k], plan[k] = items, planItems
		case string:
			data, pv := file(0)
			m[k], plan[k] = string(data), pv
			c.files[k] = append(c.files[k], data)
		}
	}
	return plan
}

// uploadCompared reports whether the server compared an upload's bytes
// with the call's: checkBody compares raw bytes sent with the intended
// Content-Type, checkFileParts the file parts of a multipart body.
func uploadCompared(r *http.Request, c *call) bool {
	got := mediaBase(r.Header.Get("Content-Type"))
	if c.bodyBytes != nil {
		return got == mediaBase(c.bodyCT)
	}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return len(c.files) > 0 && got == "multipart/form-data" && err == nil && params["boundary"] != ""
}
