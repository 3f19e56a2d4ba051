package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// loadOracle loads a spec with kin-openapi alone (never resgen's loader,
// which repairs what kin-openapi rejects): the oracle must not share
// resgen's reading of the spec. Swagger 2.0 goes through openapi2conv.
// External $refs may read files below the spec's folder only.
func loadOracle(path string) (*openapi3.T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return loadOracleData(path, data)
}

// loadOracleData loads data as the spec at path (external $refs resolve
// against path's folder).
func loadOracleData(path string, data []byte) (*openapi3.T, error) {
	var head struct {
		Swagger string `yaml:"swagger"`
	}
	_ = yaml.Unmarshal(data, &head)
	if head.Swagger != "" {
		jsonData, err := yamlToJSON(data)
		if err != nil {
			return nil, err
		}
		var doc2 openapi2.T
		if err := json.Unmarshal(jsonData, &doc2); err != nil {
			return nil, fmt.Errorf("swagger 2.0: %w", err)
		}
		return openapi2conv.ToV3(&doc2)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if u.Scheme != "" && u.Scheme != "file" {
			return nil, fmt.Errorf("%s: the oracle reads no URLs", u)
		}
		p, err := filepath.Abs(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(dir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s: outside the spec's folder", u.Path)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return inlineFileMapRefs(p, b), nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, inlined := inlineOperationRefs(path, data)
	doc, err := loader.LoadFromDataWithPath(data, &url.URL{Path: filepath.ToSlash(abs)})
	if err == nil && inlined > 0 {
		if doc.Extensions == nil {
			doc.Extensions = map[string]any{}
		}
		doc.Extensions[inlinedKey] = inlined
	}
	return doc, err
}

// inlinedKey records in the oracle's document how many operation $refs it
// inlined.
const inlinedKey = "x-conformance-inlined-operations"

func inlinedOps(doc *openapi3.T) int {
	n, _ := doc.Extensions[inlinedKey].(int)
	return n
}

// yamlToJSON re-encodes a YAML (or JSON) document as JSON.
func yamlToJSON(data []byte) ([]byte, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return data, nil
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return json.Marshal(jsonShapes(v, false))
}
