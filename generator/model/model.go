// Package model is resgen's intermediate representation: a client as Go
// declarations whose every name is already settled. It knows nothing of
// kin-openapi or jennifer; the builder fills it and the emitter prints it,
// deciding nothing: how values are written as text and how multipart
// fields are sent (text.go), body encodings and styles (encoding.go) are
// the builder's answers. Its policies are the runtime's own types;
// policyfields.go reads their fields from the runtime's description of
// them (struct tags), for every printer. Beside it: the policy facts in
// words (facts.go), which the doc comments and explain share, and the
// names the emitter reserves for itself (reserved.go). It imports no stage.
package model

import (
	"time"

	"github.com/resgen/resgen/runtime"
)

// File is one generated Go package's content.
type File struct {
	Package string
	// Source is the spec's file name as shown in the header (never absolute).
	Source     string
	Title      string
	Types      []*Type
	Operations []*Operation
	// Breakers are the breaker instances of a client, in emit order.
	Breakers []*BreakerInstance
	// Retries are the retry policies operations use, in emit order.
	Retries []*RetryPolicy
	// Servers are the spec's server URLs, variables set to their defaults.
	Servers []string
	// SecretQueryParams are the query parameter names of the spec's apiKey
	// security schemes "in: query", sorted: the runtime never prints
	// their values.
	SecretQueryParams []string
	// SecuritySchemes are the spec's security schemes the client can
	// apply, by name: each has a client option.
	SecuritySchemes []*SecurityScheme
}

// SecurityScheme is a security scheme of the spec that the client applies.
type SecurityScheme struct {
	// Name is the spec's name; Option the client option's Go name.
	Name, Option string
	// Kind is how it is sent: bearer, basic, header, query or cookie.
	Kind string
	// Param is an apiKey's header, query parameter or cookie name.
	Param string
	// Type is the spec's kind for the doc: "http bearer", "oauth2", ...
	Type string
	Doc  []string
}

// GoType is a Go type expression.
type GoType struct {
	Kind GoKind
	// Name is the builtin or local type name (Builtin, Named) or the
	// identifier inside Pkg (Qual); for a Map, when set, the map type of
	// Pkg it is written as (runtime.FreeForm: a map[string]any whose
	// numbers keep their text).
	Name string
	Pkg  string  // import path, for Qual
	Elem *GoType // Slice, Map (value), Pointer; a Qual's type argument (runtime.Nullable[T])
}

// GoKind tells what a GoType is.
type GoKind uint8

const (
	Builtin GoKind = iota // string, int64, bool, any, []byte
	Named                 // a type declared in the generated package
	Qual                  // time.Time, json.RawMessage
	Slice
	Map // map[string]Elem
	Pointer
)

// Nilable reports whether the zero value of t already means "absent", so an
// optional field of this type needs no pointer.
func (t *GoType) Nilable() bool {
	switch t.Kind {
	case Slice, Map, Pointer:
		return true
	case Qual:
		return t.Pkg == "encoding/json" && t.Name == "RawMessage" || t.Pkg == "io" && t.Name == "Reader"
	case Builtin:
		return t.Name == "any" || t.Name == "[]byte"
	}
	return false
}

// TypeKind is the shape of a declared type.
type TypeKind uint8

const (
	Struct  TypeKind = iota
	Defined          // type X <Underlying>
	Enum             // type X <Underlying> plus constants
	Union            // oneOf/anyOf: a struct with one field per variant
)

// Pos is where a node of the model is written in the spec: the file (the
// spec's, or an overlay's), 1-based line and column; 0 when unknown.
type Pos struct {
	File      string
	Line, Col int
}

// Type is a named Go type declaration.
type Type struct {
	Name string
	// Pos is where a component schema is written; zero for inline types.
	Pos        Pos
	Kind       TypeKind
	Doc        []string
	Fields     []*Field
	Underlying *GoType
	Values     []EnumValue
	// Deprecated marks a schema with deprecated: true.
	Deprecated bool
	// Extra is the value type of a struct's additional properties, nil
	// when it takes none.
	Extra *GoType
	// Variants of a Union, in the spec's order; Discriminator is the
	// property that selects one ("" when the JSON kind or keys do);
	// AnyOf is true for anyOf (several may match; the first is taken).
	Variants      []*Variant
	Discriminator string
	AnyOf         bool
	// Only marks an Enum whose one value is all the spec allows (a const
	// or a one-value enum, often the tag of a union variant): it is
	// written for the zero value, and any other value is an encode error.
	Only bool
	// Alias marks a Defined type written as an alias (type X = U): U has
	// JSON methods (time.Time, json.RawMessage, a union...) that a new
	// defined type would drop.
	Alias bool
	// ParamText asks for a ParamText method: the union of scalars is a
	// parameter, written as the set variant's text.
	ParamText bool
}

// Variant is one alternative of a Union.
type Variant struct {
	FieldName string
	Type      *GoType
	// Kind is the JSON kind it takes: object, array, string, integer,
	// number, boolean, or any (tried last).
	Kind string
	// Values are the discriminator values that select it.
	Values []string
	// Shapes are the object forms an object variant takes: one, or one
	// per variant of a variant that is itself a union of objects.
	Shapes []Shape
	// Items are the object forms of an array variant's elements, when
	// they tell it from another array variant.
	Items []Shape
	// Enum are the values of a variant whose type is an enum, as text;
	// nil for any other.
	Enum []string
	// Text writes the variant of a union with a ParamText method.
	Text Text
}

// Shape is one object form of a union variant.
type Shape struct {
	// Required are the keys an object must have to be this variant.
	Required []string
	// Checks are what the members of an object must hold to be this
	// variant, where that tells it from another variant of the union.
	Checks []MemberCheck
	// Declared are the properties the form names, sorted; nil when it
	// also takes others (additionalProperties).
	Declared []string
	// Closed marks a form that forbids other members
	// (additionalProperties: false): an object with one is not it.
	Closed bool
}

// MemberCheck is a constraint on one member of an object, when present:
// its value is one of Values (JSON texts, from a const or an enum), or
// else its JSON kind one of Kinds (object, string, integer, null, ...).
type MemberCheck struct {
	Name   string
	Values []string
	Kinds  []string
	// Forms, when set, are the object forms the member may take (an
	// object member whose schema differs between variants): present, it
	// must be one of them.
	Forms []Shape
}

// Field is one struct field.
type Field struct {
	Name     string
	JSONName string
	Type     *GoType
	Required bool
	// OmitEmpty adds ,omitempty to the JSON tag.
	OmitEmpty bool
	// EmptyNotNull marks a required, non-nullable list, map or []byte:
	// the type's MarshalJSON writes nil as [], {} or "", as null is not
	// a value the schema allows.
	EmptyNotNull bool
	// ByHand marks a property whose JSON name (WireName) no struct tag
	// can hold: JSONName is "-" and the type encodes the field itself.
	ByHand   bool
	WireName string
	Doc      []string
}

// EnumValue is one constant of an enum type.
type EnumValue struct {
	Name string
	// Value is a string, a bool, a float64 (number enums), or the exact
	// int64 or uint64 (integer enums) the spec writes.
	Value any
}

// ParamIn says where a parameter goes.
type ParamIn string

const (
	InPath   ParamIn = "path"
	InQuery  ParamIn = "query"
	InHeader ParamIn = "header"
	InCookie ParamIn = "cookie"
)

// Param is one operation parameter.
type Param struct {
	// GoName is the argument name (path) or field name (others).
	GoName   string
	SpecName string
	In       ParamIn
	Type     *GoType
	Required bool
	Explode  bool
	Style    Style
	Doc      []string
	// IdempotencyKey marks the header that carries the idempotency key.
	IdempotencyKey bool
	// KeyInts is set when a key the client makes must be an integer (the
	// header's schema is one): a random one from KeyInts[0] to KeyInts[1];
	// nil means a random UUID.
	KeyInts *[2]int64
	// Object marks a struct or map value written as key/value pairs as
	// its style says (form, deepObject, simple).
	Object bool
	// TextVar is the local holding an Object path parameter's text, named
	// after model.ObjectText(GoName) clear of every other argument.
	TextVar string
	// Text writes the value (each item of a list) when it is not Object.
	Text Text
}

// Body is an operation's request body.
type Body struct {
	ContentType string
	// Encoding is how the body is written.
	Encoding BodyEncoding
	Type     *GoType
	Required bool
	// FormStyles are the encodings of a typed form's top-level properties
	// that change what runtime.FormBody writes: style form with explode
	// false, deepObject on a list.
	FormStyles []FormStyle
	// Fields are the fields of a typed form's or multipart body's
	// struct: a required one that is nil or empty fails the call before
	// any request.
	Fields []*Field
	// Parts are how a multipart-fields body sends each of Fields.
	Parts []*Part
}

// FormStyle is one form property's encoding.
type FormStyle struct {
	Name    string
	Style   Style
	Explode bool
}

// BodyVariant is one more method of an operation: the same call with
// another request body (content type).
type BodyVariant struct {
	// Name is the Go method name (CreatePetWithForm).
	Name string
	Body *Body
}

// Response is one declared response of an operation.
type Response struct {
	// Status is "200", "2XX" or "default" as the spec wrote it.
	Status string
	// FieldName is the typed field on the response struct, "" when the
	// response has no body resgen decodes.
	FieldName string
	// Encoding is how the body is read: JSON into FieldName, text (a
	// string) in FieldName, a stream handed to the caller unread, a typed
	// event stream in FieldName (a *runtime.Stream of Type, shared by
	// every status that streams), or not at all.
	Encoding    ResponseEncoding
	ContentType string
	// Type is the field's value type; for an event stream, each event's.
	Type *GoType
	Doc  []string
}

// ResponseHeader is a declared response header, a *string field of the
// response struct (nil when the answer lacks it).
type ResponseHeader struct {
	FieldName, Name string
	Doc             []string
	// Type is the field's type, by the header's schema: *string, a
	// pointer to an integer, float or bool, or a slice of those (a list,
	// style simple: a,b); the runtime decodes the value strictly.
	Type *GoType
}

// Operation is one API call and the method that makes it.
type Operation struct {
	// Name is the Go method name; ID the operationId ("" when none).
	Name, ID     string
	Method, Path string
	// Pos is where the operation is written.
	Pos Pos
	// URLPath is the path template requests go to: Path without a
	// "#fragment", which some specs add only to tell path keys apart.
	URLPath string
	Summary string
	// Tag is the operation's first tag ("" when none): the file it goes
	// to when the output is split by tag.
	Tag        string
	Doc        []string
	Deprecated bool
	// PathParams are in the order the path uses them.
	PathParams []*Param
	// Params are query, header and cookie parameters; ParamsType names
	// their struct ("" when there are none).
	Params     []*Param
	ParamsType string
	Body       *Body
	// Variants are the methods for the other request content types, the
	// raw WithBody method last; each runs the same runtime operation.
	Variants []*BodyVariant
	// SendMethod is the unexported method the variants share (URL,
	// request, call, decoding), "" when there are none.
	SendMethod string
	Responses  []*Response
	// ResponseType names the typed response struct.
	ResponseType string
	// Accept is the Accept header: the responses' content types, ""
	// when they have none.
	Accept string
	// Headers are the response headers the spec declares (any status).
	Headers []*ResponseHeader
	// OpField is the client's unexported field holding the runtime operation.
	OpField string
	Policy  *OpPolicy
	// Security are the alternatives of scheme names the operation
	// requires, any one of which will do (an empty one: no credentials
	// needed); nil when it requires none.
	Security [][]string
}

// Events is op's first typed event stream response, whose field the
// response type's Events method ranges over; nil when op streams none.
// Every other status that streams shares its field (the builder made
// them alike, or left them raw streams).
func (op *Operation) Events() *Response {
	for _, r := range op.Responses {
		if r.Encoding.Events() {
			return r
		}
	}
	return nil
}

// ParamsByValue reports whether op's methods take their Params struct by
// value: it holds a required parameter, so a call without one does not
// compile (a pointer would let nil through, to fail at run time). A
// struct of optional parameters only is a pointer: nil sends none.
func (op *Operation) ParamsByValue() bool {
	for _, p := range op.Params {
		if p.Required {
			return true
		}
	}
	return false
}

// OpPolicy is the resolved x-resilience of one operation.
type OpPolicy struct {
	Breaker *BreakerInstance // nil: breaker none
	Retry   *RetryPolicy     // nil: not retried
	// RetryWhy says why retry is on or off, for reviewers: "GET",
	// "Idempotency-Key header", "idempotent: true", "POST without key: off".
	RetryWhy     string
	Timeout      time.Duration
	TotalTimeout time.Duration
	// IdleTimeout bounds the wait for each read of a streamed body once
	// its headers came (0: none); Resume reconnects a broken event stream
	// with Last-Event-ID.
	IdleTimeout time.Duration
	Resume      bool
	// Streamed: an answer is handed over unread (a download, an event
	// stream), so the timeouts end at its headers; set by the builder.
	Streamed bool
	// IdempotencyHeader is the header carrying the key, "" when not keyed.
	IdempotencyHeader string
	// NotRetrySafe: the method is not idempotent and has no key (or is
	// marked idempotent: false), so no policy or call option retries it.
	NotRetrySafe bool
}

// BreakerInstance is one breaker object of a client.
type BreakerInstance struct {
	// Instance is the runtime name ("nova", or "nova/listServers" for an
	// operation-scoped policy); Var the local variable in NewClient; Const
	// the exported constant holding Instance (BreakerNova).
	Instance string
	Var      string
	Const    string
	Policy   *BreakerPolicy
	// Operations counts the operations behind this breaker.
	Operations int
}

// BreakerPolicy is a fully resolved breaker policy: the runtime's, which
// the client registers (its Policy is the policy's name, or where an
// inline policy was written), and whether its breaker is shared.
type BreakerPolicy struct {
	runtime.BreakerPolicy
	Scope string // shared | operation
}

// RetryPolicy is a fully resolved retry policy: the runtime's (its Policy
// is the policy's name), and the names the client gives it.
type RetryPolicy struct {
	runtime.RetryPolicy
	// Var is the local variable in NewClient; Const the exported
	// constant holding the policy's name (RetryQuick), whose doc
	// describes the policy once.
	Var, Const string
}
