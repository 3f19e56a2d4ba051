package policy

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/load"
	yaml "go.yaml.in/yaml/v4"
)

func TestNearMissHeader(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		want      bool
	}{
		{"Idempotency-Keys", "Idempotency-Key", true},
		{"Idempotancy-Key", "Idempotency-Key", true},
		{"X-Idempotency-Key", "Idempotency-Key", true},
		{"Idempotency_Key", "Idempotency-Key", true},
		{"idempotencykey", "Idempotency-Key", true},
		{"Idempotency-Key", "X-Idempotency-Key", true},
		{"X-Request-Ids", "X-Request-Id", true},
		// The key itself, in any case, is the key, not a near miss.
		{"IDEMPOTENCY-KEY", "Idempotency-Key", false},
		{"X-Trace", "Idempotency-Key", false},
		{"Idempotency-Key-Id", "Idempotency-Key", false},
		{"X-Request", "X-Request-Id", false},
		{"X-Req-Ix", "X-Req-Id", true},
		{"X-Rsq-Ix", "X-Req-Id", false}, // two edits in 8 characters
	} {
		if got := nearMissHeader(tc.name, tc.key); got != tc.want {
			t.Errorf("nearMissHeader(%q, %q) = %v, want %v", tc.name, tc.key, got, tc.want)
		}
	}
}

// loadSpec loads the YAML text as the spec spec.yaml.
func loadSpec(t *testing.T, text string) *load.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	s, diags, err := load.Load(context.Background(), path, []byte(text), nil, nil)
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	return s
}

// TestResolveChecksTheKeyHeader: Resolve itself judges whether a declared
// key header can carry a key, before any Go type exists. A boolean
// header is warned about at the parameter and dropped from the policy (a
// POST with no other reason to be retry-safe is then not retried); an
// integer header's key is a random integer in its schema's range; a
// near miss of the key header's name is warned about.
func TestResolveChecksTheKeyHeader(t *testing.T) {
	s := loadSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /flag:
    post:
      x-resilience: {retry: default}
      parameters:
        - {name: Idempotency-Key, in: header, schema: {type: boolean}}
      responses: {"200": {description: ok}}
  /count:
    post:
      parameters:
        - {name: idempotency-key, in: header, schema: {type: integer, format: int32, minimum: 5}}
      responses: {"200": {description: ok}}
  /typo:
    post:
      parameters:
        - {name: Idempotency-Keys, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
`)
	res := Resolve(s)
	var got []string
	for _, d := range res.Diags() {
		got = append(got, fmt.Sprintf("%d:%d %s: %s", d.Line, d.Col, d.Severity, d.Msg))
	}
	want := []string{
		`8:11 warning: header "Idempotency-Key" cannot carry the idempotency key: its schema is a boolean: a key must be a string or an integer; the client sends it as an ordinary header, only when the caller sets it, and the operation is not retried (nothing else makes it retry-safe)`,
		`18:11 warning: header "Idempotency-Keys" is not the idempotency key header; did you mean "Idempotency-Key"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	flag, ok := res.Operation("POST", "/flag")
	if p := flag.Policy; !ok || flag.KeyParam != nil || p.IdempotencyHeader != "" || p.Retry != nil || !p.NotRetrySafe || p.RetryWhy != "POST without key: off" {
		t.Errorf("/flag: key param %v, policy %+v; want no key, not retried", flag.KeyParam, p)
	}
	count, _ := res.Operation("POST", "/count")
	if lo, hi, ok := count.KeyInts(); count.KeyParam == nil || !ok || lo != 5 || hi != math.MaxInt32 || count.Policy.Retry == nil {
		t.Errorf("/count: key param %v, ints %d..%d (%v), retry %v; want the header, 5..%d, retried", count.KeyParam, lo, hi, ok, count.Policy.Retry, math.MaxInt32)
	}
}

// TestKeyKindFollowsTheSchema: what a key header's schema holds, as a
// key sees it. Text and integers (a list of them holds one; a union is
// text if any variant is) carry a key; the rest are named in the warning.
func TestKeyKindFollowsTheSchema(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{type: string}`, "string"},
		{`{type: string, nullable: true}`, "string"},
		{`{}`, "string"},
		{`{type: integer}`, "integer"},
		{`{type: number}`, "number"},
		{`{type: integer, allOf: [{minimum: 5}]}`, "integer"},
		{`{allOf: [{type: string}]}`, "string"},
		{`{type: array, items: {type: integer}}`, "integer"},
		{`{type: array}`, "string"},
		{`{oneOf: [{type: string}, {type: "null"}]}`, "string"},
		{`{oneOf: [{type: integer}, {type: string}]}`, "string"},
		{`{oneOf: [{type: integer}, {type: boolean}]}`, "integer"},
		{`{allOf: [{oneOf: [{type: string}, {type: integer}]}, {maxLength: 40}]}`, "string"},
		{`{type: boolean}`, "a boolean"},
		{`{type: string, format: date-time}`, "a date-time"},
		{`{type: string, enum: [a, b]}`, "an enum"},
		{`{enum: [a, b]}`, "an enum"},
		{`{type: object, properties: {a: {type: string}}}`, "an object"},
		{`{additionalProperties: {type: string}}`, "an object"},
		{`{type: array, items: {type: object}}`, "an object"},
		{`{type: array, items: {type: array, items: {type: string}}}`, "not text"},
		{`{anyOf: [{type: string}, {type: array, items: {type: string}}]}`, "not text"},
		{`{oneOf: [{type: boolean}, {type: string, enum: [x]}]}`, "not text"},
		{`{type: string, format: byte}`, "not text"},
	} {
		var schema openapi3.Schema
		if err := yaml.Unmarshal([]byte(tc.schema), &schema); err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		p := &openapi3.Parameter{Name: "Idempotency-Key", In: "header", Schema: &openapi3.SchemaRef{Value: &schema}}
		if got := keyKind(p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.schema, got, tc.want)
		}
	}
	json := &openapi3.Parameter{Name: "K", In: "header", Content: openapi3.Content{"application/json": openapi3.NewMediaType()}}
	text := &openapi3.Parameter{Name: "K", In: "header", Content: openapi3.Content{"text/plain": openapi3.NewMediaType()}}
	if got, got2 := keyKind(json), keyKind(text); got != "not text" || got2 != "string" {
		t.Errorf("content application/json: %q, text/plain: %q; want not text, string", got, got2)
	}
}
