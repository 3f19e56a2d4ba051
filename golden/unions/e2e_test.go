package unions

// End-to-end tests of the generated union types (testdata/specs/unions.yaml)
// against loopback servers: for every union form, real JSON written by a
// server decodes into the right variant (and only that one), values the
// client sends reach the server as the JSON the spec describes, values no
// variant matches are kept in Unknown and sent back unchanged, null is the
// empty union, and what the server echoes back is deep-equal to what was
// sent.

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/resgen/resgen/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server answers every request with status and reply, or with the request
// body itself when reply is empty (an echo), and keeps what it received.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	reply  string
	reqs   []string // "METHOD /path Content-Type"
	bodies [][]byte
}

func newServer(t *testing.T, status int, reply string) *server {
	t.Helper()
	s := &server{status: status, reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		s.bodies = append(s.bodies, b)
		out := []byte(s.reply)
		s.mu.Unlock()
		if len(out) == 0 {
			out = b
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// received is the body of the last request.
func (s *server) received(t *testing.T) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("the server received no request")
	}
	return s.bodies[len(s.bodies)-1]
}

func (s *server) lastRequest() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[len(s.reqs)-1]
}

func newClient(t *testing.T, s *server) *Client {
	t.Helper()
	c, err := NewClient(s.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// sameJSON fails unless got and want are the same JSON value (objects
// compared by members, not by member order or spacing).
func sameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: invalid JSON %q: %v", what, got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the test's JSON %q: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// compact is data without insignificant spaces, members in their order.
func compact(t *testing.T, data string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// setFields names the fields of a union value that are set.
func setFields(u any) []string {
	v := reflect.ValueOf(u)
	var out []string
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsNil() {
			out = append(out, v.Type().Field(i).Name)
		}
	}
	return out
}

// sameUnion fails unless got is want: the same variant set, to the same
// value, and every other variant nil.
func sameUnion[U any](t *testing.T, what string, got, want U) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got variant %v = %s; want variant %v = %s", what, setFields(got), dump(got), setFields(want), dump(want))
	}
}

// echoed is want as an echo server hands it back: a value kept in
// Unknown has been through encoding/json, which drops its spacing.
func echoed[U any](t *testing.T, want U) U {
	t.Helper()
	v := reflect.ValueOf(&want).Elem()
	if f := v.FieldByName("Unknown"); f.IsValid() && !f.IsNil() {
		f.Set(reflect.ValueOf(json.RawMessage(compact(t, string(f.Interface().(json.RawMessage))))))
	}
	return want
}

// dump shows a union's set field as Go syntax would, pointers followed.
func dump(u any) string {
	v := reflect.ValueOf(u)
	var parts []string
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.IsNil() {
			continue
		}
		if f.Kind() == reflect.Pointer {
			f = f.Elem()
		}
		if raw, ok := f.Interface().(json.RawMessage); ok {
			parts = append(parts, v.Type().Field(i).Name+":"+string(raw))
			continue
		}
		b, _ := json.Marshal(f.Interface())
		parts = append(parts, v.Type().Field(i).Name+":"+string(b))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// --- oneOf with a discriminator and a mapping (one variant inline) ---

const shapesJSON = `[
	{"kind": "circle", "radius": 1.5, "center": {"x": 0, "y": 2}},
	{"kind": "rect", "width": 4, "height": 3},
	{"kind": "rectangle", "width": 2, "height": 2, "origin": {"x": 1, "y": -1}},
	{"kind": "triangle", "a": 3, "b": 4, "c": 5},
	{"kind": "circle", "width": 9, "height": 9, "radius": 0.5},
	{"kind": "hexagon", "side": 2, "rotation": 30},
	{"width": 4, "height": 3},
	null
]`

func TestShapesDecodeByMappedDiscriminator(t *testing.T) {
	s := newServer(t, 200, shapesJSON)
	resp, err := newClient(t, s).ListShapes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Shape{
		{Circle: &Circle{Kind: CircleKindCircle, Radius: 1.5, Center: &Point{X: 0, Y: 2}}},
		// Two mapping values name Rectangle.
		{Rectangle: &Rectangle{Kind: RectangleKindRect, Width: 4, Height: 3}},
		{Rectangle: &Rectangle{Kind: RectangleKindRectangle, Width: 2, Height: 2, Origin: &Point{X: 1, Y: -1}}},
		// The mapping points into Shape's own oneOf: #/components/schemas/Shape/oneOf/2.
		{Triangle: &Triangle{Kind: "triangle", A: 3, B: 4, C: 5}},
		// The discriminator decides, even when another variant's keys are there.
		{Circle: &Circle{Kind: CircleKindCircle, Radius: 0.5}},
		// A kind this client does not know: kept as sent.
		{Unknown: json.RawMessage(`{"kind": "hexagon", "side": 2, "rotation": 30}`)},
		// No discriminator and not every required key of any variant.
		{Unknown: json.RawMessage(`{"width": 4, "height": 3}`)},
		// null is the empty union.
		{},
	}
	got := resp.JSON200
	if len(got) != len(want) {
		t.Fatalf("got %d shapes; want %d", len(got), len(want))
	}
	for i := range want {
		sameUnion(t, "shape "+string(rune('0'+i)), got[i], want[i])
	}
}

func TestShapeRequestBodiesAndRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape Shape
		wire  string
	}{
		{"circle", Shape{Circle: &Circle{Kind: CircleKindCircle, Radius: 2.25, Center: &Point{X: -1, Y: 1}}},
			`{"kind":"circle","radius":2.25,"center":{"x":-1,"y":1}}`},
		{"rect", Shape{Rectangle: &Rectangle{Kind: RectangleKindRect, Width: 0, Height: 7}},
			`{"kind":"rect","width":0,"height":7}`},
		{"rectangle", Shape{Rectangle: &Rectangle{Kind: RectangleKindRectangle, Width: 1, Height: 2}},
			`{"kind":"rectangle","width":1,"height":2}`},
		{"inline triangle", Shape{Triangle: &Triangle{Kind: "triangle", A: 5, B: 12, C: 13}},
			`{"kind":"triangle","a":5,"b":12,"c":13}`},
		{"unknown kind", Shape{Unknown: json.RawMessage(`{"kind":"spline","points":[[0,0],[1,1.5]],"closed":false}`)},
			`{"kind":"spline","points":[[0,0],[1,1.5]],"closed":false}`},
		{"empty union", Shape{}, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, 200, "")
			resp, err := newClient(t, s).CreateShape(t.Context(), tc.shape)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.lastRequest(); got != "POST /shapes application/json" {
				t.Errorf("request %q", got)
			}
			sameJSON(t, "sent", s.received(t), tc.wire)
			if resp.JSON200 == nil {
				t.Fatalf("no JSON200; body %s", resp.Body)
			}
			sameUnion(t, "echoed back", *resp.JSON200, tc.shape)
		})
	}
}

func TestUnknownShapeFromServerIsResentUnchanged(t *testing.T) {
	const hexagon = `{"kind": "hexagon", "side": 2, "rotation": 30, "style": {"stroke": "#333", "dash": [4, 2]}}`
	s := newServer(t, 200, "["+hexagon+"]")
	c := newClient(t, s)
	list, err := c.ListShapes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.JSON200) != 1 {
		t.Fatalf("shapes %s", list.Body)
	}
	got := list.JSON200[0]
	sameUnion(t, "hexagon", got, Shape{Unknown: json.RawMessage(hexagon)})

	echo := newServer(t, 200, "")
	if _, err := newClient(t, echo).CreateShape(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	// The same members, in the same order (only spacing may change).
	if sent := string(echo.received(t)); sent != compact(t, hexagon) {
		t.Errorf("sent %s; want %s", sent, compact(t, hexagon))
	}
}

func TestNullResponseIsTheEmptyUnion(t *testing.T) {
	s := newServer(t, 200, "null")
	resp, err := newClient(t, s).CreateShape(t.Context(), Shape{Circle: &Circle{Kind: CircleKindCircle, Radius: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	sameUnion(t, "null", *resp.JSON200, Shape{})
}

// A union knows which variant it holds, so it knows the discriminator
// value: a Circle sent without its kind would reach the server as
// {"kind":""} and come back as Unknown.
func TestDiscriminatorIsWrittenForTheVariantSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		send func(c *Client) error
		wire string
	}{
		{"mapped", func(c *Client) error {
			_, err := c.CreateShape(t.Context(), Shape{Circle: &Circle{Radius: 2}})
			return err
		}, `{"kind":"circle","radius":2}`},
		{"schema name", func(c *Client) error {
			_, err := c.AddPaymentMethod(t.Context(), PaymentMethod{Card: &Card{Brand: CardBrandVisa, Last4: "4242", ExpMonth: 12, ExpYear: 2030}})
			return err
		}, `{"method":"Card","brand":"visa","last4":"4242","expMonth":12,"expYear":2030}`},
		{"inline variant", func(c *Client) error {
			_, err := c.CreateShape(t.Context(), Shape{Triangle: &Triangle{A: 3, B: 4, C: 5}})
			return err
		}, `{"kind":"triangle","a":3,"b":4,"c":5}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, 200, "null")
			if err := tc.send(newClient(t, s)); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "sent", s.received(t), tc.wire)
		})
	}
}

// --- unions as properties, in arrays, nested arrays and maps ---

func TestDrawingWithUnionsEverywhereRoundTrips(t *testing.T) {
	d := Drawing{
		Title:      "floor plan",
		Primary:    Shape{Rectangle: &Rectangle{Kind: RectangleKindRect, Width: 10, Height: 8}},
		Background: &Shape{Circle: &Circle{Kind: CircleKindCircle, Radius: 100}},
		Shapes: []Shape{
			{Circle: &Circle{Kind: CircleKindCircle, Radius: 1}},
			{Triangle: &Triangle{Kind: "triangle", A: 3, B: 4, C: 5}},
			{},
		},
		Layers: map[string]Shape{
			"walls":  {Rectangle: &Rectangle{Kind: RectangleKindRectangle, Width: 10, Height: 0.2}},
			"lamp":   {Circle: &Circle{Kind: CircleKindCircle, Radius: 0.3, Center: &Point{X: 5, Y: 4}}},
			"future": {Unknown: json.RawMessage(`{"kind":"spline","points":[[0,0],[1,1]]}`)},
		},
		Grid: [][]Shape{
			{{Circle: &Circle{Kind: CircleKindCircle, Radius: 1}}, {Rectangle: &Rectangle{Kind: RectangleKindRect, Width: 1, Height: 1}}},
			{},
		},
		Annotations: []DrawingAnnotationsItem{{String: ptr("north")}, {Point: &Point{X: 1, Y: 2}}},
		Labels:      map[string]DrawingLabelsValue{"scale": {Int: ptr[int64](50)}, "unit": {String: ptr("cm")}},
	}
	s := newServer(t, 200, "")
	resp, err := newClient(t, s).SaveDrawing(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "sent", s.received(t), `{
		"title": "floor plan",
		"primary": {"kind": "rect", "width": 10, "height": 8},
		"background": {"kind": "circle", "radius": 100},
		"shapes": [{"kind": "circle", "radius": 1}, {"kind": "triangle", "a": 3, "b": 4, "c": 5}, null],
		"layers": {
			"walls": {"kind": "rectangle", "width": 10, "height": 0.2},
			"lamp": {"kind": "circle", "radius": 0.3, "center": {"x": 5, "y": 4}},
			"future": {"kind": "spline", "points": [[0, 0], [1, 1]]}
		},
		"grid": [[{"kind": "circle", "radius": 1}, {"kind": "rect", "width": 1, "height": 1}], []],
		"annotations": ["north", {"x": 1, "y": 2}],
		"labels": {"scale": 50, "unit": "cm"}
	}`)
	if resp.JSON200 == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	if !reflect.DeepEqual(*resp.JSON200, d) {
		got, _ := json.Marshal(resp.JSON200)
		want, _ := json.Marshal(d)
		t.Errorf("echoed back\n got %s\nwant %s", got, want)
	}
}

func TestDrawingFromServerWithNullsAndUnmatchedValues(t *testing.T) {
	const body = `{
		"title": "draft",
		"primary": null,
		"shapes": [null, {"kind": "rect", "width": 1, "height": 2}],
		"layers": {"empty": null, "odd": {"kind": "blob"}},
		"annotations": [null, 3, "see legend", {"x": 0.5, "y": 0.25}, [1, 2]],
		"labels": {"ratio": 2.5, "visible": true, "count": -3, "name": "A-1"}
	}`
	s := newServer(t, 200, body)
	c := newClient(t, s)
	resp, err := c.SaveDrawing(t.Context(), Drawing{Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	if got == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	sameUnion(t, "primary", got.Primary, Shape{})
	if got.Background != nil {
		t.Errorf("background %+v; want nil (absent)", got.Background)
	}
	want := Drawing{
		Title:  "draft",
		Shapes: []Shape{{}, {Rectangle: &Rectangle{Kind: RectangleKindRect, Width: 1, Height: 2}}},
		Layers: map[string]Shape{"empty": {}, "odd": {Unknown: json.RawMessage(`{"kind": "blob"}`)}},
		Annotations: []DrawingAnnotationsItem{
			{},
			{Unknown: json.RawMessage(`3`)},
			{String: ptr("see legend")},
			{Point: &Point{X: 0.5, Y: 0.25}},
			{Unknown: json.RawMessage(`[1, 2]`)},
		},
		Labels: map[string]DrawingLabelsValue{
			"ratio":   {Unknown: json.RawMessage(`2.5`)}, // string | integer: a fraction is neither
			"visible": {Unknown: json.RawMessage(`true`)},
			"count":   {Int: ptr[int64](-3)},
			"name":    {String: ptr("A-1")},
		},
	}
	if !reflect.DeepEqual(*got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("decoded\n got %s\nwant %s", g, w)
	}

	// Sent back, the server gets what it wrote.
	echo := newServer(t, 200, "")
	if _, err := newClient(t, echo).SaveDrawing(t.Context(), *got); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "re-sent", echo.received(t), body)
}

// --- discriminator without mapping: the schema names are the values ---

func TestPaymentMethodsByDiscriminatorWithoutMapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		want PaymentMethod
	}{
		{"Card", `{"method": "Card", "brand": "amex", "last4": "0005", "expMonth": 1, "expYear": 2031}`,
			PaymentMethod{Card: &Card{Method: "Card", Brand: CardBrandAmex, Last4: "0005", ExpMonth: 1, ExpYear: 2031}}},
		{"BankTransfer", `{"method": "BankTransfer", "iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}`,
			PaymentMethod{BankTransfer: &BankTransfer{Method: "BankTransfer", Iban: "DE89370400440532013000", Bic: ptr("COBADEFFXXX")}}},
		{"Wallet", `{"method": "Wallet", "provider": "paypal", "email": "ann@example.com"}`,
			PaymentMethod{Wallet: &Wallet{Method: "Wallet", Provider: "paypal", Email: ptr("ann@example.com")}}},
		{"brand we do not know", `{"method": "Card", "brand": "discover", "last4": "1117", "expMonth": 7, "expYear": 2027}`,
			PaymentMethod{Card: &Card{Method: "Card", Brand: "discover", Last4: "1117", ExpMonth: 7, ExpYear: 2027}}},
		{"method we do not know", `{"method": "Crypto", "network": "btc", "address": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"}`,
			PaymentMethod{Unknown: json.RawMessage(`{"method": "Crypto", "network": "btc", "address": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"}`)}},
		{"lower-case name is not the schema name", `{"method": "card", "brand": "visa", "last4": "4242", "expMonth": 1, "expYear": 2030}`,
			PaymentMethod{Unknown: json.RawMessage(`{"method": "card", "brand": "visa", "last4": "4242", "expMonth": 1, "expYear": 2030}`)}},
		{"null", `null`, PaymentMethod{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, 201, tc.json)
			resp, err := newClient(t, s).AddPaymentMethod(t.Context(), PaymentMethod{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 201 || resp.JSON201 == nil {
				t.Fatalf("status %d, JSON201 %v; body %s", resp.StatusCode, resp.JSON201, resp.Body)
			}
			sameUnion(t, "decoded", *resp.JSON201, tc.want)

			// Sent back as decoded, the server gets what it wrote.
			echo := newServer(t, 201, "")
			back, err := newClient(t, echo).AddPaymentMethod(t.Context(), *resp.JSON201)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "re-sent", echo.received(t), tc.json)
			sameUnion(t, "echoed back", *back.JSON201, echoed(t, tc.want))
		})
	}
}

// --- a mapping that names schemas: by $ref and by bare schema name ---

const eventsJSON = `{
	"data": [
		{"type": "order.placed", "id": "evt_1", "orderId": "o-1", "total": 59.9, "currency": "EUR"},
		{"type": "order.shipped", "id": "evt_2", "orderId": "o-1", "carrier": "DHL", "trackingNumber": "JD014600006281230704"},
		{"type": "order.cancelled", "id": "evt_3", "orderId": "o-2", "reason": "customer request"},
		{"type": "order.refunded", "id": "evt_4", "orderId": "o-2", "amount": 10}
	],
	"latestByOrder": {
		"o-1": {"type": "order.shipped", "id": "evt_2", "orderId": "o-1", "carrier": "DHL"},
		"o-2": {"type": "order.cancelled", "id": "evt_3", "orderId": "o-2"}
	},
	"next": "cursor-2"
}`

func listEvents(t *testing.T) *EventPage {
	t.Helper()
	s := newServer(t, 200, eventsJSON)
	resp, err := newClient(t, s).ListEvents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	return resp.JSON200
}

func TestEventsMappedByRef(t *testing.T) {
	page := listEvents(t)
	if len(page.Data) != 4 {
		t.Fatalf("%d events", len(page.Data))
	}
	shipped := Event{OrderShipped: &OrderShipped{Type: "order.shipped", ID: "evt_2", OrderID: "o-1", Carrier: "DHL", TrackingNumber: ptr("JD014600006281230704")}}
	sameUnion(t, "order.shipped", page.Data[1], shipped)
	sameUnion(t, "order.refunded", page.Data[3], Event{Unknown: json.RawMessage(`{"type": "order.refunded", "id": "evt_4", "orderId": "o-2", "amount": 10}`)})
	sameUnion(t, "latestByOrder[o-1]", page.LatestByOrder["o-1"], Event{OrderShipped: &OrderShipped{Type: "order.shipped", ID: "evt_2", OrderID: "o-1", Carrier: "DHL"}})
	if page.Next != runtime.Value("cursor-2") {
		t.Errorf("next %v", page.Next)
	}

	// A union as a request body, and the 202 answer echoing it.
	s := newServer(t, 202, "")
	resp, err := newClient(t, s).PublishEvent(t.Context(), shipped)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "sent", s.received(t), `{"type":"order.shipped","id":"evt_2","orderId":"o-1","carrier":"DHL","trackingNumber":"JD014600006281230704"}`)
	if resp.JSON202 == nil {
		t.Fatalf("no JSON202; body %s", resp.Body)
	}
	sameUnion(t, "echoed back", *resp.JSON202, shipped)
}

func TestEventsMappedBySchemaName(t *testing.T) {
	page := listEvents(t)
	placed := Event{OrderPlaced: &OrderPlaced{Type: "order.placed", ID: "evt_1", OrderID: "o-1", Total: 59.9, Currency: ptr("EUR")}}
	cancelled := Event{OrderCancelled: &OrderCancelled{Type: "order.cancelled", ID: "evt_3", OrderID: "o-2", Reason: ptr("customer request")}}
	sameUnion(t, "order.placed", page.Data[0], placed)
	sameUnion(t, "order.cancelled", page.Data[2], cancelled)
	sameUnion(t, "latestByOrder[o-2]", page.LatestByOrder["o-2"], Event{OrderCancelled: &OrderCancelled{Type: "order.cancelled", ID: "evt_3", OrderID: "o-2"}})

	s := newServer(t, 202, "")
	resp, err := newClient(t, s).PublishEvent(t.Context(), placed)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "sent", s.received(t), `{"type":"order.placed","id":"evt_1","orderId":"o-1","total":59.9,"currency":"EUR"}`)
	sameUnion(t, "echoed back", *resp.JSON202, placed)
}

func TestEventPageIsResentUnchanged(t *testing.T) {
	page := listEvents(t)
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	// Whatever variant each event decoded into, none is lost on the way back.
	sameJSON(t, "re-encoded", b, eventsJSON)
}

// --- no discriminator: variants told apart by JSON kind ---

func TestSettingValuesByJSONKind(t *testing.T) {
	const body = `{
		"theme": "dark",
		"retries": 3,
		"negative": -7,
		"ratio": 0.75,
		"timeout": 1e3,
		"beta": false,
		"regions": ["eu-west-1", "us-east-2"],
		"none": [],
		"limits": {"cpu": "2", "memory": "4Gi"},
		"cleared": null
	}`
	s := newServer(t, 200, body)
	resp, err := newClient(t, s).PutSettings(t.Context(), map[string]SettingValue{})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	want := map[string]SettingValue{
		"theme":    {String: ptr("dark")},
		"retries":  {Int: ptr[int64](3)},
		"negative": {Int: ptr[int64](-7)},
		"ratio":    {Number: ptr(0.75)},
		"timeout":  {Number: ptr(1000.0)}, // an exponent makes it a number
		"beta":     {Bool: ptr(false)},
		"regions":  {Array: []string{"eu-west-1", "us-east-2"}},
		"none":     {Array: []string{}},
		"limits":   {Object: map[string]string{"cpu": "2", "memory": "4Gi"}},
		"cleared":  {},
	}
	if len(got) != len(want) {
		t.Errorf("got %d settings; want %d", len(got), len(want))
	}
	for k, w := range want {
		sameUnion(t, k, got[k], w)
	}

	// Each variant, sent.
	echo := newServer(t, 200, "")
	back, err := newClient(t, echo).PutSettings(t.Context(), want)
	if err != nil {
		t.Fatal(err)
	}
	if r := echo.lastRequest(); r != "PUT /settings application/json" {
		t.Errorf("request %q", r)
	}
	sameJSON(t, "sent", echo.received(t), `{"theme":"dark","retries":3,"negative":-7,"ratio":0.75,"timeout":1000,"beta":false,
		"regions":["eu-west-1","us-east-2"],"none":[],"limits":{"cpu":"2","memory":"4Gi"},"cleared":null}`)
	// A number without fraction goes on the wire as 1000, which is an
	// integer when it comes back: the one change a round trip makes.
	sameUnion(t, "timeout echoed back", back.JSON200["timeout"], SettingValue{Int: ptr[int64](1000)})
	for k, w := range want {
		if k != "timeout" {
			sameUnion(t, k+" echoed back", back.JSON200[k], w)
		}
	}
}

// --- objects told apart by their required keys, one catch-all ---

func TestContactsByRequiredKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		want Contact
	}{
		{"email", `{"email": "ann@example.com", "name": "Ann"}`,
			Contact{EmailContact: &EmailContact{Email: "ann@example.com", Name: ptr("Ann")}}},
		{"phone", `{"countryCode": "+44", "phone": "2079460000"}`,
			Contact{PhoneContact: &PhoneContact{CountryCode: "+44", Phone: "2079460000"}}},
		{"postal (required keys through allOf)", `{"street": "742 Evergreen Terrace", "city": "Springfield", "postcode": "49007", "name": "Homer"}`,
			Contact{PostalContact: &PostalContact{Street: "742 Evergreen Terrace", City: "Springfield", Postcode: "49007", Name: ptr("Homer")}}},
		{"most required keys win", `{"email": "bob@example.com", "countryCode": "+1", "phone": "5550100"}`,
			Contact{PhoneContact: &PhoneContact{CountryCode: "+1", Phone: "5550100"}}},
		{"phone key without country code", `{"phone": "5550100", "email": "bob@example.com"}`,
			Contact{EmailContact: &EmailContact{Email: "bob@example.com"}}},
		{"catch-all", `{"note": "walk-in customer"}`,
			Contact{AnonymousContact: &AnonymousContact{Note: ptr("walk-in customer")}}},
		{"empty object is the catch-all", `{}`, Contact{AnonymousContact: &AnonymousContact{}}},
		{"not an object", `"ann@example.com"`, Contact{Unknown: json.RawMessage(`"ann@example.com"`)}},
		{"null", `null`, Contact{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, 200, tc.json)
			resp, err := newClient(t, s).AddContact(t.Context(), Contact{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.JSON200 == nil {
				t.Fatalf("no JSON200; body %s", resp.Body)
			}
			sameUnion(t, "decoded", *resp.JSON200, tc.want)
		})
	}
}

func TestContactRequestBodies(t *testing.T) {
	for _, tc := range []struct {
		contact Contact
		wire    string
	}{
		{Contact{EmailContact: &EmailContact{Email: "ann@example.com"}}, `{"email":"ann@example.com"}`},
		{Contact{PhoneContact: &PhoneContact{CountryCode: "+33", Phone: "142685300", Name: ptr("Élodie")}}, `{"countryCode":"+33","phone":"142685300","name":"Élodie"}`},
		{Contact{PostalContact: &PostalContact{Street: "1 Infinite Loop", City: "Cupertino", Postcode: "95014"}}, `{"street":"1 Infinite Loop","city":"Cupertino","postcode":"95014"}`},
		{Contact{AnonymousContact: &AnonymousContact{Note: ptr("no details")}}, `{"note":"no details"}`},
		{Contact{Unknown: json.RawMessage(`{"fax":"+49 30 1234567"}`)}, `{"fax":"+49 30 1234567"}`},
	} {
		t.Run(tc.wire, func(t *testing.T) {
			s := newServer(t, 200, "")
			resp, err := newClient(t, s).AddContact(t.Context(), tc.contact)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "sent", s.received(t), tc.wire)
			want := tc.contact
			if want.Unknown != nil {
				// An object no required keys single out is the catch-all's.
				want = Contact{AnonymousContact: &AnonymousContact{}}
			}
			sameUnion(t, "echoed back", *resp.JSON200, want)
		})
	}
}

// --- anyOf, and 3.1 type arrays ---

func TestSearchAnyOfAndTypeArrays(t *testing.T) {
	const body = `{
		"id": "3f1c9a2e-8b7d-4e6f-a5c4-2d1e0f9b8a7c",
		"filters": [
			{"query": "trail boots", "fuzzy": true},
			{"field": "price", "gte": 10, "lte": 99.5},
			{"query": "waterproof", "field": "tags"},
			{"near": {"lat": 52.52, "lon": 13.405}},
			null
		],
		"limit": "20"
	}`
	s := newServer(t, 200, body)
	resp, err := newClient(t, s).Search(t.Context(), SearchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	if got == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	sameUnion(t, "id", got.ID, SearchRequestID{String: ptr("3f1c9a2e-8b7d-4e6f-a5c4-2d1e0f9b8a7c")})
	wantFilters := []SearchFilter{
		{TextFilter: &TextFilter{Query: "trail boots", Fuzzy: ptr(true)}},
		{RangeFilter: &RangeFilter{Field: "price", Gte: ptr(10.0), Lte: ptr(99.5)}},
		// Both match (anyOf): the first in the spec's order is taken.
		{TextFilter: &TextFilter{Query: "waterproof"}},
		{Unknown: json.RawMessage(`{"near": {"lat": 52.52, "lon": 13.405}}`)},
		{},
	}
	if len(got.Filters) != len(wantFilters) {
		t.Fatalf("%d filters; want %d", len(got.Filters), len(wantFilters))
	}
	for i, w := range wantFilters {
		sameUnion(t, "filter "+string(rune('0'+i)), got.Filters[i], w)
	}
	limit, ok := got.Limit.Get()
	if !ok {
		t.Fatal("no limit")
	}
	sameUnion(t, "limit", limit, SearchRequestLimit{String: ptr("20")})

	// Integer ids and limits, sent and echoed.
	req := SearchRequest{
		ID:      SearchRequestID{Int: ptr[int64](9007199254740993)},
		Filters: []SearchFilter{{RangeFilter: &RangeFilter{Field: "rating", Gte: ptr(4.5)}}, {TextFilter: &TextFilter{Query: "tent"}}},
		Limit:   runtime.Value(SearchRequestLimit{Int: ptr[int64](50)}),
	}
	echo := newServer(t, 200, "")
	back, err := newClient(t, echo).Search(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	// Compared as text: the id does not fit a float64.
	if sent := string(echo.received(t)); !strings.Contains(sent, `"id":9007199254740993`) {
		t.Errorf("sent %s; want the id as the integer 9007199254740993", sent)
	}
	sameJSON(t, "sent", echo.received(t), `{"id":9007199254740993,"filters":[{"field":"rating","gte":4.5},{"query":"tent"}],"limit":50}`)
	if !reflect.DeepEqual(*back.JSON200, req) {
		t.Errorf("echoed back %+v; want %+v", *back.JSON200, req)
	}
}

func TestSearchUnmatchedValues(t *testing.T) {
	const body = `{"id": 12.5, "filters": [], "limit": 2.5}`
	s := newServer(t, 200, body)
	resp, err := newClient(t, s).Search(t.Context(), SearchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	sameUnion(t, "id", got.ID, SearchRequestID{Unknown: json.RawMessage(`12.5`)})
	limit, _ := got.Limit.Get()
	sameUnion(t, "limit", limit, SearchRequestLimit{Unknown: json.RawMessage(`2.5`)})
	echo := newServer(t, 200, "")
	if _, err := newClient(t, echo).Search(t.Context(), *got); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "re-sent", echo.received(t), body)
}

// anyOf means any variant the value is valid against: an object that has
// TextFilter's required key, but of the wrong type, is a RangeFilter.
func TestAnyOfTriesTheNextVariantWhenOneDoesNotFit(t *testing.T) {
	s := newServer(t, 200, `{"id": 1, "filters": [{"query": 5, "field": "price", "gte": 1}]}`)
	resp, err := newClient(t, s).Search(t.Context(), SearchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sameUnion(t, "filter", resp.JSON200.Filters[0], SearchFilter{RangeFilter: &RangeFilter{Field: "price", Gte: ptr(1.0)}})
}

// --- nullable unions, type arrays with null, open enums ---

const customerJSON = `{
	"id": "cus_1",
	"externalId": null,
	"recipients": "billing@example.com",
	"defaultPayment": null,
	"billingAddress": null,
	"tier": "gold"
}`

func saveCustomer(t *testing.T, reply string, c Customer) (*Customer, []byte) {
	t.Helper()
	s := newServer(t, 200, reply)
	resp, err := newClient(t, s).SaveCustomer(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	return resp.JSON200, s.received(t)
}

func TestCustomerNullableUnions(t *testing.T) {
	got, _ := saveCustomer(t, customerJSON, Customer{})
	if got.ExternalID != nil {
		t.Errorf("externalId %s; want nil for null", dump(*got.ExternalID))
	}
	if got.DefaultPayment != nil {
		t.Errorf("defaultPayment %+v; want nil for null (a nullable union is a pointer)", got.DefaultPayment)
	}
	sameUnion(t, "recipients", got.Recipients, CustomerRecipients{String: ptr("billing@example.com")})
	if got.Tier == nil {
		t.Fatal("tier nil")
	}
	sameUnion(t, "tier", *got.Tier, Tier{String: ptr("gold")})

	// The nulls go back as nulls: both are required.
	_, sent := saveCustomer(t, "", *got)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(sent, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"externalId", "defaultPayment"} {
		if string(m[k]) != "null" {
			t.Errorf("sent %s: %s; want null", k, m[k])
		}
	}
}

func TestCustomerNullableRefIsNull(t *testing.T) {
	got, _ := saveCustomer(t, customerJSON, Customer{})
	_, sent := saveCustomer(t, "", *got)
	sameJSON(t, "re-sent", sent, customerJSON)
}

func TestCustomerUnionVariants(t *testing.T) {
	const body = `{
		"id": "cus_2",
		"externalId": 48151623,
		"recipients": ["ap@example.com", "cfo@example.com"],
		"defaultPayment": {"method": "Card", "brand": "visa", "last4": "4242", "expMonth": 12, "expYear": 2030},
		"billingAddress": {"line1": "10 Downing St", "city": "London", "country": "GB"},
		"backupPayment": {"method": "Wallet", "provider": "applepay"},
		"favouriteColor": "green",
		"tier": 3
	}`
	got, _ := saveCustomer(t, body, Customer{})
	want := Customer{
		ID:             "cus_2",
		ExternalID:     &CustomerExternalID{Int: ptr[int64](48151623)},
		Recipients:     CustomerRecipients{Array: []string{"ap@example.com", "cfo@example.com"}},
		DefaultPayment: &CustomerDefaultPayment{Card: &Card{Method: "Card", Brand: CardBrandVisa, Last4: "4242", ExpMonth: 12, ExpYear: 2030}},
		BillingAddress: &Address{Line1: "10 Downing St", City: ptr("London"), Country: "GB"},
		BackupPayment:  runtime.Value(PaymentMethod{Wallet: &Wallet{Method: "Wallet", Provider: "applepay"}}),
		FavouriteColor: &CustomerFavouriteColor{KnownColor: ptr(KnownColorGreen)},
		Tier:           &Tier{Int: ptr[int64](3)},
	}
	if !reflect.DeepEqual(*got, want) {
		g, _ := json.Marshal(got)
		t.Errorf("decoded %s", g)
		sameUnion(t, "externalId", *got.ExternalID, *want.ExternalID)
		sameUnion(t, "recipients", got.Recipients, want.Recipients)
		sameUnion(t, "defaultPayment", *got.DefaultPayment, *want.DefaultPayment)
		sameUnion(t, "favouriteColor", *got.FavouriteColor, *want.FavouriteColor)
		sameUnion(t, "tier", *got.Tier, *want.Tier)
	}

	// And a string external id, a bank transfer; sent, then echoed back.
	c := want
	c.ExternalID = &CustomerExternalID{String: ptr("crm-0042")}
	c.Recipients = CustomerRecipients{String: ptr("one@example.com")}
	c.DefaultPayment = &CustomerDefaultPayment{BankTransfer: &BankTransfer{Method: "BankTransfer", Iban: "GB82WEST12345698765432"}}
	c.BackupPayment = runtime.Nullable[PaymentMethod]{}
	c.FavouriteColor = nil
	c.Tier = &Tier{String: ptr("enterprise")}
	back, sent := saveCustomer(t, "", c)
	sameJSON(t, "sent", sent, `{"id":"cus_2","externalId":"crm-0042","recipients":"one@example.com",
		"defaultPayment":{"method":"BankTransfer","iban":"GB82WEST12345698765432"},
		"billingAddress":{"line1":"10 Downing St","city":"London","country":"GB"},"tier":"enterprise"}`)
	if !reflect.DeepEqual(*back, c) {
		b, _ := json.Marshal(back)
		t.Errorf("echoed back %s", b)
	}
}

// anyOf [KnownColor, string] is an open enum: a colour the enum does not
// list is only valid against the string variant.
func TestOpenEnumTakesTheStringVariantForOtherValues(t *testing.T) {
	got, _ := saveCustomer(t, `{"id": "c", "externalId": null, "recipients": [], "defaultPayment": null, "billingAddress": null, "favouriteColor": "teal"}`, Customer{})
	sameUnion(t, "favouriteColor", *got.FavouriteColor, CustomerFavouriteColor{String: ptr("teal")})
}

// --- allOf inheritance, the discriminator on the base ---

func TestPetChoiceByDiscriminator(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		want PetChoice
	}{
		{"Cat", `{"petType": "Cat", "name": "Tom", "huntingSkill": "lazy"}`,
			PetChoice{Cat: &Cat{PetType: "Cat", Name: "Tom", HuntingSkill: CatHuntingSkillLazy}}},
		{"Dog", `{"petType": "Dog", "name": "Rex", "packSize": 4}`,
			PetChoice{Dog: &Dog{PetType: "Dog", Name: "Rex", PackSize: ptr[int32](4)}}},
		{"Lizard (same required keys as Dog)", `{"petType": "Lizard", "name": "Spike", "lovesRocks": true}`,
			PetChoice{Lizard: &Lizard{PetType: "Lizard", Name: "Spike", LovesRocks: ptr(true)}}},
		{"Parrot", `{"petType": "Parrot", "name": "Polly", "words": 40}`,
			PetChoice{Unknown: json.RawMessage(`{"petType": "Parrot", "name": "Polly", "words": 40}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, 200, tc.json)
			resp, err := newClient(t, s).AdoptPet(t.Context(), PetChoice{})
			if err != nil {
				t.Fatal(err)
			}
			sameUnion(t, "decoded", *resp.JSON200, tc.want)
			echo := newServer(t, 200, "")
			back, err := newClient(t, echo).AdoptPet(t.Context(), tc.want)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "sent", echo.received(t), tc.json)
			sameUnion(t, "echoed back", *back.JSON200, echoed(t, tc.want))
		})
	}
}

const petsJSON = `[
	{"petType": "Cat", "name": "Tom", "huntingSkill": "adventurous"},
	{"petType": "Dog", "name": "Rex"},
	{"petType": "Lizard", "name": "Spike", "lovesRocks": true}
]`

func TestAnyPetByRequiredKeys(t *testing.T) {
	s := newServer(t, 200, petsJSON)
	resp, err := newClient(t, s).ListPets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	if len(got) != 3 {
		t.Fatalf("%d pets", len(got))
	}
	sameUnion(t, "cat", got[0], AnyPet{Cat: &Cat{PetType: "Cat", Name: "Tom", HuntingSkill: CatHuntingSkillAdventurous}})
	sameUnion(t, "dog", got[1], AnyPet{Dog: &Dog{PetType: "Dog", Name: "Rex"}})
}

// AnyPet is a oneOf [Cat, Dog, Lizard] without a discriminator of its own:
// each variant inherits Pet's (petType, the schema names). Dog and Lizard
// have the same required keys, so only petType tells them apart.
func TestAnyPetByTheDiscriminatorItsVariantsInherit(t *testing.T) {
	s := newServer(t, 200, petsJSON)
	resp, err := newClient(t, s).ListPets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sameUnion(t, "lizard", resp.JSON200[2], AnyPet{Lizard: &Lizard{PetType: "Lizard", Name: "Spike", LovesRocks: ptr(true)}})
}

// --- recursive unions ---

func TestExpressionTreeRoundTrips(t *testing.T) {
	num := func(v float64) Expr { return Expr{NumberLit: &NumberLit{Op: "num", Value: v}} }
	variable := func(n string) Expr { return Expr{VarRef: &VarRef{Op: "var", Name: n}} }
	// (1 + x) * max(2, y, pow(x, 2))   pow is an operator this client does not know.
	e := Expr{BinaryOp: &BinaryOp{Op: "mul",
		Left: Expr{BinaryOp: &BinaryOp{Op: "add", Left: num(1), Right: variable("x")}},
		Right: Expr{Call: &Call{Op: "call", Fn: "max", Args: []Expr{
			num(2), variable("y"),
			{Unknown: json.RawMessage(`{"op":"pow","base":{"op":"var","name":"x"},"exp":2}`)},
		}}},
	}}
	const wire = `{"op":"mul",
		"left":{"op":"add","left":{"op":"num","value":1},"right":{"op":"var","name":"x"}},
		"right":{"op":"call","fn":"max","args":[{"op":"num","value":2},{"op":"var","name":"y"},{"op":"pow","base":{"op":"var","name":"x"},"exp":2}]}}`
	s := newServer(t, 200, "")
	resp, err := newClient(t, s).Evaluate(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "sent", s.received(t), wire)
	if !reflect.DeepEqual(*resp.JSON200, e) {
		b, _ := json.Marshal(resp.JSON200)
		t.Errorf("echoed back %s", b)
	}
}

func TestExpressionTreeFromServer(t *testing.T) {
	// No op on the root: told apart by the required keys; "mul" and "add"
	// both map to BinaryOp.
	const body = `{"left": {"op": "num", "value": -2.5}, "right": {"op": "mul", "left": {"op": "var", "name": "n"}, "right": {"op": "num", "value": 10}}, "op": "add"}`
	s := newServer(t, 200, body)
	resp, err := newClient(t, s).Evaluate(t.Context(), Expr{})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	want := Expr{BinaryOp: &BinaryOp{Op: "add",
		Left:  Expr{NumberLit: &NumberLit{Op: "num", Value: -2.5}},
		Right: Expr{BinaryOp: &BinaryOp{Op: "mul", Left: Expr{VarRef: &VarRef{Op: "var", Name: "n"}}, Right: Expr{NumberLit: &NumberLit{Op: "num", Value: 10}}}},
	}}
	if !reflect.DeepEqual(*got, want) {
		b, _ := json.Marshal(got)
		t.Errorf("decoded %s", b)
	}
}

func TestJSONValueTypedAllTheWayDown(t *testing.T) {
	const doc = `{
		"name": "résumé",
		"age": 42,
		"score": -0.5,
		"active": true,
		"tags": ["a", 1, false, null, [], {}],
		"address": {"city": "Zürich", "geo": [47.37, 8.54]},
		"spouse": null
	}`
	s := newServer(t, 200, doc)
	resp, err := newClient(t, s).StoreDocument(t.Context(), JSONValue{})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.JSON200
	if got == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	want := JSONValue{Object: map[string]JSONValue{
		"name":   {String: ptr("résumé")},
		"age":    {Number: ptr(42.0)},
		"score":  {Number: ptr(-0.5)},
		"active": {Bool: ptr(true)},
		"tags": {Array: []JSONValue{
			{String: ptr("a")}, {Number: ptr(1.0)}, {Bool: ptr(false)}, {}, {Array: []JSONValue{}}, {Object: map[string]JSONValue{}},
		}},
		"address": {Object: map[string]JSONValue{
			"city": {String: ptr("Zürich")},
			"geo":  {Array: []JSONValue{{Number: ptr(47.37)}, {Number: ptr(8.54)}}},
		}},
		"spouse": {},
	}}
	if !reflect.DeepEqual(*got, want) {
		b, _ := json.Marshal(got)
		t.Errorf("decoded %s", b)
	}

	echo := newServer(t, 200, "")
	back, err := newClient(t, echo).StoreDocument(t.Context(), *got)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "re-sent", echo.received(t), doc)
	if !reflect.DeepEqual(*back.JSON200, want) {
		t.Error("echoed back differs")
	}
}

// --- properties every variant shares, declared next to the oneOf ---

func TestNotificationKeepsTheSharedProperties(t *testing.T) {
	const body = `{"id": "ntf_1", "createdAt": "2025-03-01T09:30:00Z", "channel": "email", "to": "ann@example.com", "subject": "Your receipt"}`
	s := newServer(t, 200, body)
	resp, err := newClient(t, s).SendNotification(t.Context(), Notification{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("no JSON200; body %s", resp.Body)
	}
	if resp.JSON200.EmailNotification == nil {
		t.Fatalf("decoded %s; want the email variant", dump(*resp.JSON200))
	}
	want := EmailNotification{Channel: "email", To: "ann@example.com", Subject: "Your receipt"}
	if *resp.JSON200.EmailNotification != want {
		t.Errorf("email %+v; want %+v", *resp.JSON200.EmailNotification, want)
	}
	sms := Notification{ID: "ntf_2", SmsNotification: &SmsNotification{Channel: "sms", Phone: "+15550100", Text: "Code 123456"}}
	echo := newServer(t, 200, "")
	back, err := newClient(t, echo).SendNotification(t.Context(), sms)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "sent", echo.received(t), `{"id":"ntf_2","channel":"sms","phone":"+15550100","text":"Code 123456"}`)
	sameUnion(t, "echoed back", *back.JSON200, sms)
}

func TestNotificationSharedPropertiesRoundTrip(t *testing.T) {
	const body = `{"id": "ntf_1", "createdAt": "2025-03-01T09:30:00Z", "channel": "email", "to": "ann@example.com", "subject": "Your receipt"}`
	s := newServer(t, 200, body)
	resp, err := newClient(t, s).SendNotification(t.Context(), Notification{})
	if err != nil {
		t.Fatal(err)
	}
	echo := newServer(t, 200, "")
	if _, err := newClient(t, echo).SendNotification(t.Context(), *resp.JSON200); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "re-sent", echo.received(t), body)
}
