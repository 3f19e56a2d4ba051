package templates

import "testing"

func TestTemplatesParse(t *testing.T) {
	for _, name := range []string{"header", "opdoc", "breakerdoc", "explain.markdown"} {
		if T.Lookup(name) == nil {
			t.Errorf("template %q is missing", name)
		}
	}
}
