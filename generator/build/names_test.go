package build

import "testing"

// TestInitialismNames: initialisms are written in one case, in the plural
// too (IDs, URLs: the s stays lower case), at the start of an unexported
// name all in lower case; other words are not taken for initialisms.
func TestInitialismNames(t *testing.T) {
	for _, c := range []struct{ in, exported, unexported string }{
		{"id", "ID", "id"},
		{"ids", "IDs", "ids"},
		{"Ids", "IDs", "ids"},
		{"IDs", "IDs", "ids"},
		{"userIds", "UserIDs", "userIDs"},
		{"user_ids", "UserIDs", "userIDs"},
		{"X-Request-Ids", "XRequestIDs", "xRequestIDs"},
		{"urls", "URLs", "urls"},
		{"URLs", "URLs", "urls"},
		{"APIsList", "APIsList", "apisList"},
		{"URLPath", "URLPath", "urlPath"},
		{"https", "HTTPS", "https"}, // an initialism of its own, not HTTP's plural
		{"css", "CSS", "css"},
		{"idsFoo", "IDsFoo", "idsFoo"},
		{"address", "Address", "address"},
		{"bids", "Bids", "bids"}, // a word ending in "ids" is not one
		{"db", "Db", "db"},       // not in golint's list: left as it was
	} {
		if got := exportedName(c.in, "X"); got != c.exported {
			t.Errorf("exportedName(%q) = %q, want %q", c.in, got, c.exported)
		}
		if got := unexportedName(c.in, "x"); got != c.unexported {
			t.Errorf("unexportedName(%q) = %q, want %q", c.in, got, c.unexported)
		}
	}
}
