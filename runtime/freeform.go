package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
)

// FreeForm is a JSON object whose members the spec leaves open (an object
// with no properties, or additionalProperties: true): a map[string]any as
// encoding/json decodes one, except that numbers, in nested objects and
// lists too, decode as json.Number, which keeps their text. An integer
// above 2^53 (9007199254740993, an int64 ID) keeps its digits, and a
// decoded value encodes again unchanged; a float64 would round it. A
// map[string]any literal is a FreeForm as it is.
type FreeForm map[string]any

// UnmarshalJSON decodes the JSON object data (or null) as encoding/json
// decodes a map[string]any, its numbers as json.Number.
func (f *FreeForm) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	if len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")) > 0 {
		return errors.New("runtime.FreeForm: data after the JSON object")
	}
	*f = m
	return nil
}
