package types

// End-to-end tests of the generated Types client: a Thing is PUT to a
// loopback server that keeps the body and hands it back on GET /things, so
// every schema construct of testdata/specs/types.yaml makes a full round
// trip through the generated encoder, the wire and the generated decoder.

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echo keeps the last body PUT to /things/{id} and returns it from GET
// /things (or returns fixed, when set).
type echo struct {
	*httptest.Server
	mu    sync.Mutex
	last  []byte
	ids   []string
	ctype []string
	fixed string
}

func newEcho(t *testing.T) *echo {
	t.Helper()
	e := &echo{}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /things/{id}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.last = b
		e.ids = append(e.ids, r.PathValue("id"))
		e.ctype = append(e.ctype, r.Header.Get("Content-Type"))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"updated": true}`)
	})
	mux.HandleFunc("GET /things", func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		b := e.last
		if e.fixed != "" {
			b = []byte(e.fixed)
		}
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	e.Server = httptest.NewServer(mux)
	t.Cleanup(e.Close)
	return e
}

func (e *echo) sent() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

func newClient(t *testing.T, s *echo) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// roundTrip PUTs th and GETs it back.
func roundTrip(t *testing.T, th Thing) (sent map[string]json.RawMessage, back *Thing) {
	t.Helper()
	s := newEcho(t)
	c := newClient(t, s)
	up, err := c.Type(t.Context(), 77, th)
	if err != nil {
		t.Fatal(err)
	}
	if up.StatusCode != 200 || up.JSON200 == nil || up.JSON200.Updated == nil || !*up.JSON200.Updated {
		t.Fatalf("PUT answer %d %+v", up.StatusCode, up.JSON200)
	}
	if s.ids[0] != "77" || s.ctype[0] != "application/json" {
		t.Errorf("PUT /things/%s with Content-Type %q", s.ids[0], s.ctype[0])
	}
	if err := json.Unmarshal(s.sent(), &sent); err != nil {
		t.Fatalf("the server got invalid JSON %q: %v", s.sent(), err)
	}
	resp, err := c.ListThings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("GET /things: no JSON200; body %q", resp.Body)
	}
	return sent, resp.JSON200
}

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

func TestMinimalThingSendsExactlyTheRequiredFields(t *testing.T) {
	created := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	sent, back := roundTrip(t, Thing{ID: 0, Name: "", Kind: KindEmpty, Created: created})
	// Required fields are sent even when zero; optional ones are left out.
	if got := keys(sent); !slices.Equal(got, []string{"created", "id", "kind", "name"}) {
		t.Fatalf("sent keys %q; want exactly the required created, id, kind, name", got)
	}
	if string(sent["id"]) != "0" || string(sent["name"]) != `""` || string(sent["kind"]) != `""` || string(sent["created"]) != `"2025-01-02T03:04:05Z"` {
		t.Errorf("sent %s", sent)
	}
	want := Thing{Created: created}
	if !reflect.DeepEqual(*back, want) {
		t.Errorf("got back %+v; want %+v", *back, want)
	}
}

func TestFullThingRoundTrips(t *testing.T) {
	created := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.FixedZone("", -7*3600))
	th := Thing{
		ID:        1 << 53,
		Name:      "ünïcode \"quoted\" </script>",
		Kind:      KindExtraLarge,
		Created:   created,
		Count32:   ptr[int32](-2147483648),
		Ratio:     ptr[float32](0.25),
		Score:     ptr(1e-300),
		Enabled:   ptr(false),
		Raw:       []byte{0, 1, 2, 0xfb, 0xff},
		Day:       ptr("2024-02-29"),
		Tags:      []string{"a", "b"},
		Labels:    map[string]string{"env": "prod", "": "empty key"},
		Extra:     map[string]any{"n": json.Number("1.5"), "list": []any{"x", true, nil}, "obj": map[string]any{"k": "v"}},
		Anything:  json.RawMessage(`{"deep":[1,{"x":null}]}`),
		Choice:    &ThingChoice{String: ptr("a string branch")},
		MaybeKind: ptr(KindX2x),
		Level:     runtime.Value(LevelX3),
		Merged:    &Merged{ID: "m1", Note: ptr("n"), Extra: 0},
		Nested: &ThingNested{
			Depth: ptr[int64](1),
			Child: &Thing{ID: 2, Name: "child", Kind: KindSmall, Created: created.UTC(),
				Nested: &ThingNested{Depth: ptr[int64](2)}},
		},
		NullableName:     runtime.Value("not null"),
		RequiredNullable: runtime.Value(LevelX1),
	}
	sent, back := roundTrip(t, th)

	// What went on the wire, field by field, as the spec says.
	for k, want := range map[string]string{
		"raw":       `"AAEC+/8="`, // format: byte is standard base64
		"created":   `"2024-02-29T23:59:58.123456789-07:00"`,
		"kind":      `"extra-large"`,
		"maybeKind": `"2x"`,
		"level":     `3`,
		"count32":   `-2147483648`,
		"enabled":   `false`, // optional false is sent: it is set
		"id":        `9007199254740992`,
		"choice":    `"a string branch"`,
		"anything":  `{"deep":[1,{"x":null}]}`,
		"merged":    `{"extra":0,"id":"m1","note":"n"}`, // allOf: one flat object, the required extra sent even when 0
	} {
		if got := string(sent[k]); got != want {
			t.Errorf("sent %s = %s; want %s", k, got, want)
		}
	}

	if !back.Created.Equal(created) {
		t.Errorf("created %v; want %v", back.Created, created)
	}
	if _, off := back.Created.Zone(); off != -7*3600 {
		t.Errorf("created lost its offset: %v", back.Created)
	}
	if back.Nested == nil || back.Nested.Child == nil || back.Nested.Child.Nested == nil {
		t.Fatalf("nested %+v", back.Nested)
	}
	if !back.Nested.Child.Created.Equal(created) || back.Nested.Child.Nested.Child != nil || *back.Nested.Child.Nested.Depth != 2 {
		t.Errorf("nested child %+v", back.Nested.Child)
	}
	// Compare the rest exactly (times compared above: zones differ in pointer).
	b, w := *back, th
	bn, wn := *b.Nested, *w.Nested
	bc, wc := *bn.Child, *wn.Child
	bn.Child, wn.Child, b.Nested, w.Nested = &bc, &wc, &bn, &wn
	b.Created, w.Created = time.Time{}, time.Time{}
	bc.Created, wc.Created = time.Time{}, time.Time{}
	if !reflect.DeepEqual(b, w) {
		gb, _ := json.Marshal(b)
		gw, _ := json.Marshal(w)
		t.Errorf("round trip changed the thing:\n got %s\nwant %s", gb, gw)
	}
}

func TestEnumConstantsHaveTheSpecsValues(t *testing.T) {
	kinds := map[Kind]string{KindSmall: "small", KindLarge: "large", KindExtraLarge: "extra-large", KindX2x: "2x", KindEmpty: ""}
	for k, want := range kinds {
		if string(k) != want {
			t.Errorf("Kind constant %q; want %q", k, want)
		}
	}
	if len(kinds) != 5 {
		t.Errorf("%d distinct Kind constants; want 5", len(kinds))
	}
	if LevelX1 != 1 || LevelX2 != 2 || LevelX3 != 3 {
		t.Errorf("Level constants %d %d %d; want 1 2 3", LevelX1, LevelX2, LevelX3)
	}
}

func TestServerValuesOutsideTheSpecStillDecode(t *testing.T) {
	s := newEcho(t)
	s.fixed = `{
		"id": 5, "name": "n", "kind": "huge", "created": "2020-05-06T07:08:09.5+05:30",
		"level": 7, "maybeKind": "tiny",
		"nullableName": null, "requiredNullable": null,
		"choice": 42, "anything": [1, "two"],
		"extra": {}, "labels": {"a": "b"},
		"unknownField": {"ignored": true},
		"merged": {"id": "b", "extra": 9}
	}`
	c := newClient(t, s)
	resp, err := c.ListThings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	th := resp.JSON200
	if th == nil {
		t.Fatalf("no JSON200; body %q", resp.Body)
	}
	if th.Kind != "huge" || th.MaybeKind == nil || *th.MaybeKind != "tiny" {
		t.Errorf("unknown enum values: kind %q, maybeKind %v", th.Kind, th.MaybeKind)
	}
	if th.Level != runtime.Value[Level](7) {
		t.Errorf("unknown integer enum value: level %v", th.Level)
	}
	if !th.NullableName.IsNull() || !th.RequiredNullable.IsNull() {
		t.Errorf("null decoded to %v, %v; want null", th.NullableName, th.RequiredNullable)
	}
	if th.Choice == nil || th.Choice.Int == nil || *th.Choice.Int != 42 || th.Choice.String != nil || th.Choice.Unknown != nil {
		t.Errorf("oneOf: choice %+v; want the integer variant 42", th.Choice)
	}
	if string(th.Anything) != `[1, "two"]` {
		t.Errorf("any: %s; want the raw JSON", th.Anything)
	}
	if want := time.Date(2020, 5, 6, 7, 8, 9, 5e8, time.FixedZone("", 5*3600+1800)); !th.Created.Equal(want) {
		t.Errorf("created %v; want %v", th.Created, want)
	}
	if th.Extra == nil || len(th.Extra) != 0 || th.Labels["a"] != "b" {
		t.Errorf("maps: extra %#v, labels %#v", th.Extra, th.Labels)
	}
	if th.Merged == nil || th.Merged.ID != "b" || th.Merged.Extra != 9 || th.Merged.Note != nil {
		t.Errorf("merged %+v", th.Merged)
	}
}

func TestBadServerJSONIsADecodeError(t *testing.T) {
	s := newEcho(t)
	s.fixed = `{"id": "not a number", "name": "n", "kind": "small", "created": "2020-01-01T00:00:00Z"}`
	c := newClient(t, s)
	resp, err := c.ListThings(t.Context())
	if err == nil {
		t.Fatalf("got %+v; want a decode error", resp)
	}
	if resp == nil || resp.StatusCode != 200 || string(resp.Body) != s.fixed {
		t.Errorf("with the error, the response should still hold the status and raw body; got %+v", resp)
	}
}

func TestAllOfMergesBaseAndOwnFields(t *testing.T) {
	var m Merged
	if err := json.Unmarshal([]byte(`{"id": "x", "note": "from base", "extra": 3}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "x" || m.Note == nil || *m.Note != "from base" || m.Extra != 3 {
		t.Errorf("got %+v", m)
	}
	// Base's required id and Merged's own required extra are both always sent.
	b, _ := json.Marshal(Merged{})
	if string(b) != `{"extra":0,"id":""}` {
		t.Errorf("zero Merged encodes as %s", b)
	}
	// Alias is Base.
	var a Alias
	if err := json.Unmarshal([]byte(`{"id": "al", "note": "n"}`), &a); err != nil || a.ID != "al" || *a.Note != "n" {
		t.Errorf("Alias %+v, %v", a, err)
	}
}

func TestRecursiveTree(t *testing.T) {
	in := `{"value":"root","left":{"value":"l","left":null},"children":[{"value":"c1","left":null},{"value":"c2","left":{"value":"c2l","left":null,"children":[{"value":"deep","left":null}]}}]}`
	var tr Tree
	if err := json.Unmarshal([]byte(in), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Value != "root" || tr.Left == nil || tr.Left.Value != "l" || tr.Left.Left != nil ||
		len(tr.Children) != 2 || tr.Children[1].Left.Children[0].Value != "deep" {
		t.Fatalf("decoded %+v", tr)
	}
	out, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	// left is required (and may be null): it is always sent; children is optional.
	var a, b any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(out, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("re-encoded\n%s\nwant\n%s", out, in)
	}
}

func TestNamesEdgeCasesAreDistinctFields(t *testing.T) {
	in := `{"2fa":true,"@odata.type":"#x.y","StartTime":"eq","StartTime<":"lt","StartTime>":"gt","func":"f","größe":3,"start_time":"snake","type":"t","日本":"jp"}`
	var n Names
	if err := json.Unmarshal([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]any{
		"2fa": n.X2fa, "@odata.type": n.OdataType, "StartTime": n.StartTime, "StartTime<": n.StartTimeLt,
		"StartTime>": n.StartTimeGt, "func": n.Func, "größe": n.Größe, "start_time": n.StartTime2, "type": n.Type, "日本": n.X日本,
	} {
		if reflect.ValueOf(got).IsNil() {
			t.Errorf("%q did not decode into its field", name)
		}
	}
	if *n.StartTime != "eq" || *n.StartTimeLt != "lt" || *n.StartTimeGt != "gt" || *n.StartTime2 != "snake" {
		t.Errorf("StartTime fields mixed up: %q %q %q %q", *n.StartTime, *n.StartTimeLt, *n.StartTimeGt, *n.StartTime2)
	}
	if !*n.X2fa || *n.OdataType != "#x.y" || *n.Größe != 3 || *n.X日本 != "jp" {
		t.Errorf("got %+v", n)
	}
	out, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(out, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("re-encoded %s; want the same keys and values as %s", out, in)
	}
}

func TestNamesNoStructTagCanHold(t *testing.T) {

	in := `{"":"empty name","quote\"and` + "`" + `tick":"odd"}`
	var n Names
	if err := json.Unmarshal([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	if n.Field == nil || *n.Field != "empty name" || n.QuoteAndTick == nil || *n.QuoteAndTick != "odd" {
		t.Errorf("decoded Field %v, QuoteAndTick %v; want the two values", n.Field, n.QuoteAndTick)
	}
	out, _ := json.Marshal(Names{Field: ptr("e"), QuoteAndTick: ptr("q")})
	var m map[string]string
	json.Unmarshal(out, &m)
	if m[""] != "e" || m["quote\"and`tick"] != "q" {
		t.Errorf("encoded %s; want both properties", out)
	}
}

func TestOneOfDecodesItsVariantsAndKeepsTheRest(t *testing.T) {
	decode := func(t *testing.T, raw string) *ThingChoice {
		t.Helper()
		var th Thing
		in := `{"id":1,"name":"n","kind":"small","created":"2020-01-01T00:00:00Z","choice":` + raw + `}`
		if err := json.Unmarshal([]byte(in), &th); err != nil {
			t.Fatalf("choice %s: %v", raw, err)
		}
		return th.Choice
	}
	if c := decode(t, `"s"`); c == nil || c.String == nil || *c.String != "s" || c.Int != nil || c.Unknown != nil {
		t.Errorf(`choice "s" decoded to %+v; want the string variant`, c)
	}
	if c := decode(t, `-12`); c == nil || c.Int == nil || *c.Int != -12 || c.String != nil || c.Unknown != nil {
		t.Errorf("choice -12 decoded to %+v; want the integer variant", c)
	}
	if c := decode(t, `null`); c != nil && (c.String != nil || c.Int != nil || c.Unknown != nil) {
		t.Errorf("choice null decoded to %+v", c)
	}
	// The fallback: a value no variant matches is kept as the raw JSON,
	// and sent back unchanged.
	for _, raw := range []string{`{"a":[1,2]}`, `1.5`, `true`, `[1]`} {
		c := decode(t, raw)
		if c == nil || string(c.Unknown) != raw || c.String != nil || c.Int != nil {
			t.Errorf("choice %s decoded to %+v; want Unknown holding the raw JSON", raw, c)
			continue
		}
		out, err := json.Marshal(Thing{Choice: c})
		if err != nil || !strings.Contains(string(out), `"choice":`+raw) {
			t.Errorf("choice %s re-encoded as %s (%v)", raw, out, err)
		}
	}
	for _, tc := range []struct {
		in   ThingChoice
		want string
	}{{ThingChoice{String: ptr("x")}, `"x"`}, {ThingChoice{Int: ptr[int64](7)}, `7`}} {
		if out, err := json.Marshal(tc.in); err != nil || string(out) != tc.want {
			t.Errorf("%+v encoded as %s (%v); want %s", tc.in, out, err, tc.want)
		}
	}
}

// TestEnumConstantsAreExact: integers a float64 cannot hold (beyond 2^53)
// are the spec's exact literals, and the extremes of int64 and uint64
// compile (BigID, BigUnsigned and the inline Limits.max enum of types.yaml).
func TestEnumConstantsAreExact(t *testing.T) {
	for got, want := range map[string]string{
		strconv.FormatInt(int64(BigIDX9007199254740993), 10):             "9007199254740993",
		strconv.FormatInt(int64(BigIDX9223372036854775807), 10):          "9223372036854775807",
		strconv.FormatInt(int64(BigIDMinus9223372036854775808), 10):      "-9223372036854775808",
		strconv.FormatUint(uint64(BigUnsignedX18446744073709551615), 10): "18446744073709551615",
		strconv.FormatUint(uint64(BigUnsignedX9007199254740993), 10):     "9007199254740993",
		strconv.FormatInt(int64(LimitsMaxX9007199254740995), 10):         "9007199254740995",
		strconv.FormatInt(int64(LimitsMaxMinus9007199254740995), 10):     "-9007199254740995",
	} {
		if got != want {
			t.Errorf("constant is %s, the spec says %s", got, want)
		}
	}
	var v struct{ Max *LimitsMax }
	if err := json.Unmarshal([]byte(`{"max": 9007199254740995}`), &v); err != nil || v.Max == nil || *v.Max != LimitsMaxX9007199254740995 {
		t.Errorf("decoding the wire value: %v, %v", v.Max, err)
	}
}
