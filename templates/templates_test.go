package templates

import "testing"

func TestTemplatesParse(t *testing.T) {
	for _, name := range []string{"header", "opdoc"} {
		if T.Lookup(name) == nil {
			t.Errorf("template %q is missing", name)
		}
	}
}
