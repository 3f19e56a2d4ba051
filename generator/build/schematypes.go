package build

import (
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/resgen/resgen/generator/load"
)

// What a schema says of its JSON type is load's, shared with policy,
// which reads an idempotency key header's schema the same way.

func nonNullTypes(s *openapi3.Schema) []string { return load.NonNullTypes(s) }

func enumValues(s *openapi3.Schema) []any { return load.EnumValues(s) }

func valueType(s *openapi3.Schema) string { return load.ValueType(s) }
