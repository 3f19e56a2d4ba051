package load

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// Repaired returns the spec's bytes after resgen's decode repairs (the
// fixes load applies when kin-openapi cannot decode a document), re-encoded
// as YAML, and how many repairs it made; with none it returns the file as
// read. The conformance harness feeds them to its kin-openapi oracle when
// kin-openapi cannot load the raw spec, and says so.
func Repaired(path string) ([]byte, int, error) {
	data, err := ReadNamed(path)
	if err != nil {
		return nil, 0, err
	}
	src := &srcMap{file: path, data: data, from: map[*yaml.Node]string{}}
	root := src.tree()
	if root == nil {
		return nil, 0, fmt.Errorf("%s: %v", path, src.err)
	}
	rp := &repairs{}
	n := rp.repairTree(path, root)
	if n == 0 {
		return data, 0, nil
	}
	out, err := yaml.Marshal(root)
	if err != nil {
		return nil, 0, err
	}
	return out, n, nil
}
