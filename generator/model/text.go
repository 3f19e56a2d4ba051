package model

// TextForm is how a value is made parameter text once it has the type the
// form takes (Text.Via).
type TextForm uint8

const (
	// TextNone: the value is not written as text.
	TextNone TextForm = iota
	// TextString: a string, as it is.
	TextString
	// TextBase64: []byte (format: byte) as standard base64, as JSON
	// writes it too.
	TextBase64
	TextBool // strconv.FormatBool
	// TextInt and TextUint: the decimal integer, through int64 or uint64.
	TextInt
	TextUint
	// TextFloat32 and TextFloat64: the shortest decimal that reads back
	// as the value, never with an exponent (no style writes 1e+06).
	TextFloat32
	TextFloat64
	// TextTime: time.Time as RFC 3339 with nanoseconds.
	TextTime
	// TextConvert: string(v), json.RawMessage's JSON text as it is.
	TextConvert
	// TextMethod: the value's ParamText method, a union of scalars.
	TextMethod
)

// Text is how a value of one type is written as parameter text: converted
// to each type of Via in turn, then written by Form. A type ID UUID, with
// type UUID string, is string(UUID(id)): Via [UUID, string].
type Text struct {
	Form TextForm
	Via  []*GoType
}

// PartKind is how a multipart body writes one field of its struct.
type PartKind uint8

const (
	// PartFile: a *runtime.File, a file part.
	PartFile PartKind = iota
	// PartFiles: a list of *runtime.File, a file part per item.
	PartFiles
	// PartText: a text value (Part.Text), a field.
	PartText
	// PartTexts: a list of text values, a field per item.
	PartTexts
	// PartJSON: anything else, a JSON part.
	PartJSON
	// PartJSONs: a list of anything else, a JSON part per item.
	PartJSONs
)

// Part is one field of a multipart body's struct and how it is sent.
type Part struct {
	Field *Field
	Kind  PartKind
	// Text writes a PartText value, or each item of PartTexts.
	Text Text
	// ContentType is a file part's default Content-Type, where the spec's
	// encoding names one; "" leaves it to the File.
	ContentType string
}
