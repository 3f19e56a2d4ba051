// Package realspecs lists the real public specs the tests run against
// (../shared/specs/real, see its SOURCES.md), for the test files of
// several packages.
package realspecs

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// List returns the spec files of the corpus in dir: every top-level YAML
// or JSON file, and the entry file (*public*.yaml) of each multi-file
// spec, sorted.
func List(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if m, _ := filepath.Glob(filepath.Join(p, "*public*.yaml")); len(m) == 1 {
				out = append(out, m[0])
			}
		case strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".json"):
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Size is the bytes of spec, a file List returned for dir: of the file
// alone, or of its whole folder for a multi-file spec.
func Size(dir, spec string) int64 {
	if filepath.Dir(spec) == filepath.Clean(dir) || !strings.HasPrefix(spec, filepath.Clean(dir)) {
		fi, err := os.Stat(spec)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	var n int64
	filepath.Walk(filepath.Dir(spec), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
