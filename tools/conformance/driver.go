package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/resgen/resgen/generator"
)

// planCall is one call as the driver sees it: the method and each
// argument's JSON (decoded into the argument's own Go type by reflection).
type planCall struct {
	ID     string    `json:"id"`
	Method string    `json:"method"`
	Args   []planArg `json:"args"`
	// Field is the response struct's typed field to print ("" for none).
	Field string `json:"field,omitempty"`
	// FieldKind is how the driver reads Field: "" re-encodes it as JSON,
	// "stream" reads the io.ReadCloser whole and prints its bytes.
	FieldKind string `json:"fieldKind,omitempty"`
	// Headers are the response struct's header fields to print: Go field
	// name -> the header it is declared for.
	Headers map[string]string `json:"headers,omitempty"`
}

type planArg struct {
	// Kind is path, params, body or reader (an io.Reader of the bytes
	// Value holds as base64).
	Kind string `json:"kind"`
	// Value is the argument's JSON (path, body).
	Value rawJSON `json:"value,omitempty"`
	// Fields are the Params struct's fields by Go name.
	Fields map[string]rawJSON `json:"fields,omitempty"`
}

// driverResult is one line the driver prints.
type driverResult struct {
	ID     string  `json:"id"`
	Err    string  `json:"err,omitempty"`
	Status int     `json:"status"`
	Field  rawJSON `json:"field,omitempty"`
	// FieldNil is true when the typed field stayed nil.
	FieldNil bool `json:"fieldNil,omitempty"`
	// Bytes are what a stream field held, read whole (base64 in JSON).
	Bytes []byte `json:"bytes,omitempty"`
	// Events are the events the response's Events method yielded.
	Events []gotEvent `json:"events,omitempty"`
	// Coerced lists arguments whose Go type could not hold the schema's
	// value; the driver passed the value's text instead.
	Coerced []string `json:"coerced,omitempty"`
	// Headers are the set header fields' JSON by Go field name (a nil
	// one is left out).
	Headers map[string]rawJSON `json:"headers,omitempty"`
	// Unknowns are the unions, in the arguments as the driver filled them
	// and in the decoded response, that hold their value in Unknown:
	// every value the harness makes is one of a declared variant.
	Unknowns []string `json:"unknowns,omitempty"`
}

// callHeader carries the call id from the driver to the server.
const callHeader = "X-Conformance-Call"

// driverSource is the generic driver: it knows no operation; the plan says
// which method to call with what.
const driverSource = `package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"

	client "conftest/client"
	"github.com/resgen/resgen/runtime"
)

type planArg struct {
	Kind   string                     ` + "`json:\"kind\"`" + `
	Value  json.RawMessage            ` + "`json:\"value\"`" + `
	Fields map[string]json.RawMessage ` + "`json:\"fields\"`" + `
}

type planCall struct {
	ID     string    ` + "`json:\"id\"`" + `
	Method string    ` + "`json:\"method\"`" + `
	Args   []planArg ` + "`json:\"args\"`" + `
	Field  string    ` + "`json:\"field\"`" + `
	FieldKind string ` + "`json:\"fieldKind\"`" + `
	Headers map[string]string ` + "`json:\"headers\"`" + `
}

type result struct {
	ID       string          ` + "`json:\"id\"`" + `
	Err      string          ` + "`json:\"err,omitempty\"`" + `
	Status   int             ` + "`json:\"status\"`" + `
	Field    json.RawMessage ` + "`json:\"field,omitempty\"`" + `
	FieldNil bool            ` + "`json:\"fieldNil,omitempty\"`" + `
	Bytes    []byte          ` + "`json:\"bytes,omitempty\"`" + `
	Events   []event         ` + "`json:\"events,omitempty\"`" + `
	Coerced  []string        ` + "`json:\"coerced,omitempty\"`" + `
	Headers  map[string]json.RawMessage ` + "`json:\"headers,omitempty\"`" + `
	Unknowns []string        ` + "`json:\"unknowns,omitempty\"`" + `
}

type event struct {
	Data  json.RawMessage ` + "`json:\"data\"`" + `
	ID    string          ` + "`json:\"id,omitempty\"`" + `
	Event string          ` + "`json:\"event,omitempty\"`" + `
	Retry int64           ` + "`json:\"retry,omitempty\"`" + `
}

var rawType = reflect.TypeOf(json.RawMessage(nil))

// events ranges over a response's Events method as a caller does and
// records each event (its Data re-encoded as JSON); an error ends it.
func events(resp reflect.Value, res *result) {
	m := resp.MethodByName("Events")
	if !m.IsValid() {
		res.Err = "harness: the response has no Events method"
		return
	}
	seq := m.Call(nil)[0]
	yield := reflect.MakeFunc(seq.Type().In(0), func(args []reflect.Value) []reflect.Value {
		if e, _ := args[1].Interface().(error); e != nil {
			res.Err = "Events: " + e.Error()
			return []reflect.Value{reflect.ValueOf(false)}
		}
		ev := args[0]
		data := ev.FieldByName("Data")
		unknowns(data, fmt.Sprintf("event %d", len(res.Events)+1), 0, &res.Unknowns)
		b, err := json.Marshal(data.Interface())
		if err != nil {
			res.Err = fmt.Sprintf("re-encode event %d: %v", len(res.Events)+1, err)
			return []reflect.Value{reflect.ValueOf(false)}
		}
		retry, _ := ev.FieldByName("Retry").Interface().(time.Duration)
		res.Events = append(res.Events, event{Data: b, ID: ev.FieldByName("ID").String(), Event: ev.FieldByName("Event").String(), Retry: int64(retry / time.Millisecond)})
		return []reflect.Value{reflect.ValueOf(true)}
	})
	seq.Call([]reflect.Value{yield})
}

var bytesType = reflect.TypeOf([]byte(nil))

// oneShot is a body a caller hands over as a plain io.Reader (no Seek, no
// WriteTo, no Len): its bytes can be read once, as from a pipe, and a
// client that reads it twice sends nothing the second time.
type oneShot struct{ r io.Reader }

func (o *oneShot) Read(p []byte) (int, error) { return o.r.Read(p) }

// unknowns adds the path of each union in v that holds its value in
// Unknown (a generated union's field for what no variant matched).
func unknowns(v reflect.Value, path string, depth int, out *[]string) {
	if depth > 40 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			unknowns(v.Elem(), path, depth+1, out)
		}
	case reflect.Struct:
		t := v.Type()
		if f, ok := t.FieldByName("Unknown"); ok && f.Type == rawType && v.FieldByIndex(f.Index).Len() > 0 {
			*out = append(*out, fmt.Sprintf("%s (%s) holds %s in Unknown", path, t.Name(), v.FieldByIndex(f.Index).Bytes()))
		}
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() && t.Field(i).Name != "Unknown" {
				unknowns(v.Field(i), path+"."+t.Field(i).Name, depth+1, out)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := 0; i < v.Len() && i < 64; i++ {
			unknowns(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1, out)
		}
	case reflect.Map:
		it := v.MapRange()
		for n := 0; it.Next() && n < 64; n++ {
			unknowns(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), depth+1, out)
		}
	}
}

// coerce puts a JSON scalar into a string-kinded argument whose Go type
// disagrees with the schema (the wire can still be judged); ok is false
// when that does not apply.
func coerce(v reflect.Value, raw json.RawMessage) bool {
	t := v.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.String || len(raw) == 0 || raw[0] == '"' {
		return false
	}
	// A list or object in a string field (the escape hatch of what no
	// style writes) goes as its JSON text, reported as a type mismatch.
	s := reflect.New(t).Elem()
	s.SetString(string(raw))
	if v.Kind() == reflect.Pointer {
		p := reflect.New(t)
		p.Elem().Set(s)
		v.Set(p)
	} else {
		v.Set(s)
	}
	return true
}

var fileType = reflect.TypeOf(runtime.File{})

// hasFile reports whether t holds a runtime.File (multipart bodies).
func hasFile(t reflect.Type, depth int) bool {
	if depth > 4 {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		return hasFile(t.Elem(), depth+1)
	case reflect.Struct:
		if t == fileType {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			if hasFile(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// fill decodes raw into v; a runtime.File is made from a JSON string (its content).
func fill(v reflect.Value, raw json.RawMessage) error {
	if !hasFile(v.Type(), 0) {
		return json.Unmarshal(raw, v.Addr().Interface())
	}
	switch v.Kind() {
	case reflect.Pointer:
		if string(raw) == "null" {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := fill(p.Elem(), raw); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Slice:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return err
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			if err := fill(s.Index(i), it); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	if v.Type() == fileType {
		// Its content: text, or opaque bytes as {"base64": ...}.
		var content []byte
		var text string
		var b64 struct{ Base64 []byte }
		if err := json.Unmarshal(raw, &text); err == nil {
			content = []byte(text)
		} else if err := json.Unmarshal(raw, &b64); err == nil {
			content = b64.Base64
		} else {
			return err
		}
		v.Set(reflect.ValueOf(runtime.File{Name: "upload.bin", Content: &oneShot{r: bytes.NewReader(content)}}))
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" {
			name = f.Name
		}
		if fr, ok := fields[name]; ok {
			if err := fill(v.Field(i), fr); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return nil
}

func call(server string, pc planCall) (res result) {
	res.ID = pc.ID
	defer func() {
		if r := recover(); r != nil {
			res.Err = fmt.Sprintf("panic: %v", r)
		}
	}()
	id := pc.ID
	c, err := client.NewClient(server,
		client.WithLogger(slog.New(slog.DiscardHandler)),
		client.WithHTTPClient(&http.Client{Timeout: 20 * time.Second}),
		client.WithRequestEditor(func(_ context.Context, req *http.Request) error {
			req.Header.Set("` + callHeader + `", id)
			return nil
		}))
	if err != nil {
		res.Err = "NewClient: " + err.Error()
		return
	}
	m := reflect.ValueOf(c).MethodByName(pc.Method)
	if !m.IsValid() {
		res.Err = "harness: no method " + pc.Method
		return
	}
	mt := m.Type()
	// Every method ends with opts ...runtime.CallOption, which the plan
	// leaves empty.
	if !mt.IsVariadic() || mt.NumIn() != len(pc.Args)+2 {
		res.Err = fmt.Sprintf("harness: %s takes %d arguments and options; the plan has %d", pc.Method, mt.NumIn()-2, len(pc.Args))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in := []reflect.Value{reflect.ValueOf(ctx)}
	for i, a := range pc.Args {
		t := mt.In(i + 1)
		v := reflect.New(t).Elem()
		switch a.Kind {
		case "params":
			// A pointer, or the struct itself when it holds a required
			// parameter.
			byValue := t.Kind() != reflect.Pointer
			st := t
			if !byValue {
				st = t.Elem()
			}
			p := reflect.New(st)
			for name, raw := range a.Fields {
				f := p.Elem().FieldByName(name)
				if !f.IsValid() {
					res.Err = "harness: no params field " + name
					return
				}
				if err := fill(f, raw); err != nil {
					if !coerce(f, raw) {
						res.Err = fmt.Sprintf("harness: params field %s: %v", name, err)
						return
					}
					res.Coerced = append(res.Coerced, fmt.Sprintf("params field %s is %s; the schema's value is %s", name, f.Type(), raw))
				}
			}
			v = p
			if byValue {
				v = p.Elem()
			}
		case "reader":
			// A body of bytes: the JSON is its bytes (base64), passed as
			// the []byte or the io.Reader the method takes; a reader is
			// read once, as a caller's pipe or file can be.
			var data []byte
			if err := json.Unmarshal(a.Value, &data); err != nil {
				res.Err = fmt.Sprintf("harness: argument %d (reader): %v", i+1, err)
				return
			}
			switch r := reflect.ValueOf(&oneShot{r: bytes.NewReader(data)}); {
			case t == bytesType:
				v.Set(reflect.ValueOf(data))
			case r.Type().AssignableTo(t):
				v.Set(r)
			default:
				res.Err = fmt.Sprintf("harness: argument %d (reader) is a %s", i+1, t)
				return
			}
		default:
			if len(a.Value) > 0 {
				if err := fill(v, a.Value); err != nil {
					if !coerce(v, a.Value) {
						res.Err = fmt.Sprintf("harness: argument %d (%s, %s): %v", i+1, a.Kind, t, err)
						return
					}
					res.Coerced = append(res.Coerced, fmt.Sprintf("argument %d (%s) is %s; the schema's value is %s", i+1, a.Kind, t, a.Value))
				}
			}
		}
		unknowns(v, fmt.Sprintf("argument %d (%s)", i+1, a.Kind), 0, &res.Unknowns)
		in = append(in, v)
	}
	out := m.Call(in)
	// A status of 400 or more is a *runtime.StatusError beside the typed
	// response, which must still decode: only a body that did not is a
	// failure here.
	if e, _ := out[1].Interface().(error); e != nil {
		var se *runtime.StatusError
		if !errors.As(e, &se) || se.DecodeErr != nil || out[0].IsNil() {
			res.Err = e.Error()
		}
	}
	resp := out[0]
	if resp.IsNil() {
		return
	}
	resp = resp.Elem()
	res.Status = int(resp.FieldByName("StatusCode").Int())
	// Each typed header field as it decoded, by Go field name: the
	// harness knows which header each is declared for.
	for name := range pc.Headers {
		f := resp.FieldByName(name)
		if !f.IsValid() {
			res.Err = "harness: no response header field " + name
			return
		}
		if (f.Kind() == reflect.Pointer || f.Kind() == reflect.Slice || f.Kind() == reflect.Map || f.Kind() == reflect.Interface) && f.IsNil() {
			continue
		}
		b, err := json.Marshal(f.Interface())
		if err != nil {
			res.Err = "re-encode response header field " + name + ": " + err.Error()
			return
		}
		if res.Headers == nil {
			res.Headers = map[string]json.RawMessage{}
		}
		res.Headers[name] = b
	}
	if pc.Field != "" {
		f := resp.FieldByName(pc.Field)
		if !f.IsValid() {
			res.Err = "harness: no response field " + pc.Field
			return
		}
		if (f.Kind() == reflect.Pointer || f.Kind() == reflect.Slice || f.Kind() == reflect.Map || f.Kind() == reflect.Interface) && f.IsNil() {
			res.FieldNil = true
			return
		}
		if pc.FieldKind == "events" {
			events(out[0], &res)
			return
		}
		if pc.FieldKind == "stream" {
			// A download: every byte, read as a caller would, then closed.
			rc, ok := f.Interface().(io.ReadCloser)
			if !ok {
				res.Err = "harness: response field " + pc.Field + " is no io.ReadCloser"
				return
			}
			data, err := io.ReadAll(rc)
			if cerr := rc.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				res.Err = "read " + pc.Field + ": " + err.Error()
			}
			res.Bytes = data
			return
		}
		unknowns(f, "response "+pc.Field, 0, &res.Unknowns)
		b, err := json.Marshal(f.Interface())
		if err != nil {
			res.Err = "re-encode response: " + err.Error()
			return
		}
		res.Field = b
	}
	return
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: driver PLAN SERVER")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var calls []planCall
	if err := json.Unmarshal(data, &calls); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, pc := range calls {
		enc.Encode(call(os.Args[2], pc))
	}
	_ = io.EOF
}
`

// buildDriver writes the generated client and the driver into a fresh
// module under dir and builds it; it returns the binary's path.
func buildDriver(ctx context.Context, opts *Options, dir string, res *generator.Result, mutate func([]byte) []byte) (string, error) {
	root := opts.RepoRoot
	gomod := fmt.Sprintf("module conftest\n\ngo 1.26\n\nrequire github.com/resgen/resgen v0.0.0\n\nreplace github.com/resgen/resgen => %s\n", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		return "", err
	}
	cdir := filepath.Join(dir, "client")
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return "", err
	}
	for _, f := range res.Files {
		name := f.Name
		if name == "" {
			name = "client.gen.go"
		}
		src := f.Source
		if mutate != nil {
			src = mutate(src)
		}
		if err := os.WriteFile(filepath.Join(cdir, filepath.Base(name)), src, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(driverSource), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "driver")
	// Built for speed, never -race: no optimization of the (large)
	// generated package, no symbol table or DWARF to link; the runtime and
	// the standard library come from the shared build cache as they are.
	args := []string{"build", "-gcflags=conftest/client=-N -l", "-ldflags=-s -w", "-o", bin}
	if len(opts.Overlay) > 0 {
		ov, err := writeOverlay(dir, opts.Overlay)
		if err != nil {
			return "", err
		}
		args = append(args, "-overlay="+ov)
	}
	cmd := exec.CommandContext(ctx, opts.GoTool, append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
	if opts.GoCache != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+opts.GoCache)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build of the generated client: %v\n%s", err, truncate(out.String(), 4000))
	}
	return bin, nil
}

// writeOverlay writes the replaced files' contents under dir and the go
// build -overlay file that maps each real path to its copy.
func writeOverlay(dir string, files map[string][]byte) (string, error) {
	odir := filepath.Join(dir, "overlay")
	if err := os.MkdirAll(odir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	i := 0
	for path, data := range files {
		if !filepath.IsAbs(path) {
			return "", fmt.Errorf("overlay path %s is not absolute", path)
		}
		i++
		copyPath := filepath.Join(odir, fmt.Sprintf("%d-%s", i, filepath.Base(path)))
		if err := os.WriteFile(copyPath, data, 0o644); err != nil {
			return "", err
		}
		replace[path] = copyPath
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	ov := filepath.Join(dir, "overlay.json")
	return ov, os.WriteFile(ov, data, 0o644)
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
