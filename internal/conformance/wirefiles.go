package conformance

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// uploadName is the file name the driver gives every runtime.File it
// makes (driver.go's fill): a file part must carry it as its filename.
const uploadName = "upload.bin"

// checkFileParts reports file parts of a multipart body (a property of
// format binary, or a list of them) sent without the caller's file name,
// or with a Content-Type that is not the one the spec's encoding declares
// (application/octet-stream when it declares none). kin-openapi reads a
// part's content only, so neither shows in its verdict: a server that
// tells files from fields by the filename (RFC 7578 4.2) would take the
// file for a text field.
func checkFileParts(r *http.Request, body []byte, c *call) []problem {
	if mediaBase(r.Header.Get("Content-Type")) != "multipart/form-data" || c.kinOp == nil || c.kinOp.RequestBody == nil || c.kinOp.RequestBody.Value == nil {
		return nil
	}
	mt := c.kinOp.RequestBody.Value.Content.Get(c.bodyCT)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil // checkBody reports it
	}
	var probs []problem
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return probs // checkBody reports it
		}
		name := part.FormName()
		ps := propertySchema(mt.Schema, name, 0)
		if !binarySchema(ps) {
			continue
		}
		if fn := part.FileName(); fn != uploadName {
			probs = append(probs, problem{kind: "body", detail: fmt.Sprintf("file part %q: filename %q; the caller's file is named %q (Content-Disposition %q)", name, fn, uploadName, part.Header.Get("Content-Disposition"))})
		}
		want := []string{"application/octet-stream"}
		if enc := mt.Encoding[name]; enc != nil && strings.TrimSpace(enc.ContentType) != "" {
			want = strings.Split(enc.ContentType, ",")
		}
		got := mediaBase(part.Header.Get("Content-Type"))
		ok := false
		for _, w := range want {
			if mediaMatch(got, mediaBase(strings.TrimSpace(w))) && got != "" && !strings.Contains(got, "*") {
				ok = true
			}
		}
		if !ok {
			probs = append(probs, problem{kind: "body", detail: fmt.Sprintf("file part %q: Content-Type %q; the spec's encoding makes it %s", name, part.Header.Get("Content-Type"), strings.Join(want, " or "))})
		}
	}
	return probs
}

// propertySchema is the schema of an object schema's property name (its
// allOf parts and union variants searched too), nil when none declares it.
func propertySchema(ref *openapi3.SchemaRef, name string, depth int) *openapi3.Schema {
	if ref == nil || ref.Value == nil || depth > maxDepth {
		return nil
	}
	if p := ref.Value.Properties[name]; p != nil && p.Value != nil {
		return p.Value
	}
	for _, list := range []openapi3.SchemaRefs{ref.Value.AllOf, ref.Value.OneOf, ref.Value.AnyOf} {
		for _, part := range list {
			if s := propertySchema(part, name, depth+1); s != nil {
				return s
			}
		}
	}
	return nil
}

// binarySchema reports whether s is a file: format binary, or a list of
// such.
func binarySchema(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if s.Type != nil && s.Type.Is("array") && s.Items != nil {
		return binarySchema(s.Items.Value)
	}
	return s.Format == "binary"
}
