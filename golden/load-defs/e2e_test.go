package loaddefs

// Schemas with their own $defs, referred to as '#/$defs/X'
// (testdata/specs/load/defs.yaml): each $ref names the $defs of the schema
// that holds it, so the client decodes the nested objects into their own
// types, not into json.RawMessage.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func serve(t *testing.T, body string) *Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInlineSchemaDefsDecode(t *testing.T) {
	c := serve(t, `{"id":"o1","lines":[{"sku":"a-1","qty":2,"money":{"amount":"9.90","currency":"EUR"}}]}`)
	resp, err := c.GetOrder(context.Background(), "o1")
	if err != nil {
		t.Fatal(err)
	}
	o := resp.JSON200
	if o == nil || o.ID != "o1" || len(o.Lines) != 1 {
		t.Fatalf("decoded %+v", o)
	}
	var line Line = o.Lines[0]
	if line.Sku != "a-1" || line.Qty != 2 || line.Money == nil || *line.Money != (Money{Amount: "9.90", Currency: "EUR"}) {
		t.Fatalf("line %+v", line)
	}
}

func TestComponentDefsDecode(t *testing.T) {
	c := serve(t, `{"number":"INV-7","total":{"cents":9007199254740993}}`)
	resp, err := c.GetInvoice(context.Background(), "7")
	if err != nil {
		t.Fatal(err)
	}
	var total Total = resp.JSON200.Total
	if resp.JSON200.Number != "INV-7" || total.Cents != 9007199254740993 {
		t.Fatalf("decoded %+v", resp.JSON200)
	}
}
