package generator

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// streamSpec is a spec of one GET /s whose responses and x-resilience are
// given (YAML indented for their place), at OpenAPI version v.
func streamSpec(v, xres, responses string) string {
	s := "openapi: " + v + "\ninfo: {title: t, version: \"1\"}\npaths:\n  /s:\n    get:\n      operationId: s\n"
	if xres != "" {
		s += "      x-resilience: " + xres + "\n"
	}
	return s + "      responses:\n" + responses
}

// warningLines are the run's warnings, one line each.
func warningLines(res *Result) []string {
	var out []string
	for _, d := range res.Diags {
		out = append(out, strings.SplitN(d.String(), "\n", 2)[0])
	}
	return out
}

// TestStreamDiagnostics: what resgen cannot make a typed stream, or a
// stream key that does nothing, is a warning at its line.
func TestStreamDiagnostics(t *testing.T) {
	sse := func(status, schema string) string {
		return "        \"" + status + "\":\n          description: d\n          content:\n            text/event-stream:\n              schema: " + schema + "\n"
	}
	cases := []struct {
		name, xres, responses, want string
	}{
		{"resume without a stream", "{resume: true}", "        \"200\": {description: ok}\n",
			`spec.yaml:7:22: warning: resume: true on operation "s", which streams no server-sent events (text/event-stream): nothing to resume, the call runs as without it`},
		{"resume on JSON lines", "{resume: true}", "        \"200\":\n          description: d\n          content:\n            application/jsonl:\n              schema: {type: object}\n",
			`spec.yaml:7:22: warning: resume: true on operation "s", which streams no server-sent events (text/event-stream): nothing to resume, the call runs as without it`},
		{"idleTimeout without a streamed answer", "{idleTimeout: 1s}", "        \"200\": {description: ok}\n",
			`spec.yaml:7:22: warning: idleTimeout on operation "s", whose answers are all read whole within the attempt: only a streamed answer (events, a download) is read after the headers, so it does nothing here`},
		{"two statuses, two event types", "", sse("200", "{type: object, properties: {a: {type: string}}}") + sse("206", "{type: string}"),
			`spec.yaml:16:13: warning: unsupported: the 206 answer streams text/event-stream events of another type than the 200 answer; Events ranges over the 200 stream, this one is the raw Stream`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := generateText(t, streamSpec("3.0.3", c.xres, c.responses), false)
			if err != nil {
				t.Fatal(err)
			}
			got := warningLines(res)
			if len(got) != 1 || got[0] != c.want {
				t.Fatalf("warnings %q\nwant %s", got, c.want)
			}
		})
	}
}

// TestStreamTypes: the Go type of a stream's events, by its schema:
// a string or none is the text as sent; OpenAPI 3.2's itemSchema is one
// item (for SSE, the event's data, by its contentSchema); two statuses of
// the same stream share one field.
func TestStreamTypes(t *testing.T) {
	media := func(ct, body string) string {
		return "        \"200\":\n          description: d\n          content:\n            " + ct + ":\n" + body
	}
	cases := []struct {
		name, version, responses string
		want                     []string
	}{
		{"no schema", "3.0.3", media("text/event-stream", "              {}\n"),
			[]string{"EventStream *runtime.Stream[string] `resgen:\"200,sse\"`"}},
		{"a string with an enum", "3.0.3", media("text/event-stream", "              schema: {type: string, enum: [a, b]}\n"),
			[]string{"EventStream *runtime.Stream[string] `resgen:\"200,sse\"`"}},
		{"3.2 itemSchema of JSON lines", "3.2.0", media("application/x-ndjson", "              itemSchema:\n                type: object\n                properties: {n: {type: integer}}\n"),
			[]string{"EventStream *runtime.Stream[SResponse200Event] `resgen:\"200,jsonl\"`", "N *int64 `json:\"n,omitzero\"`"}},
		{"3.2 itemSchema of an SSE event", "3.2.0", media("text/event-stream", "              itemSchema:\n                type: object\n                properties:\n                  event: {type: string}\n                  data:\n                    type: string\n                    contentMediaType: application/json\n                    contentSchema: {type: object, properties: {n: {type: integer}}}\n"),
			[]string{"EventStream *runtime.Stream[SResponse200Event] `resgen:\"200,sse\"`", "N *int64 `json:\"n,omitzero\"`"}},
		{"3.2 itemSchema of SSE text data", "3.2.0", media("text/event-stream", "              itemSchema:\n                type: object\n                properties: {data: {type: string}}\n"),
			[]string{"EventStream *runtime.Stream[string] `resgen:\"200,sse\"`"}},
		{"default, no 2xx", "3.0.3", "        default:\n          description: d\n          content:\n            text/event-stream:\n              schema: {type: string}\n",
			[]string{"EventStream *runtime.Stream[string] `resgen:\"default,sse\"`"}},
		{"two statuses, one stream", "3.0.3", media("text/event-stream", "              schema: {type: string}\n") + "        \"206\":\n          description: d\n          content:\n            text/event-stream:\n              schema: {type: string}\n",
			[]string{"EventStream *runtime.Stream[string] `resgen:\"200 206,sse\"`"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := generateText(t, streamSpec(c.version, "", c.responses), false)
			if err != nil {
				t.Fatal(err)
			}
			src := strings.Join(strings.Fields(string(res.Source)), " ")
			for _, w := range c.want {
				if !strings.Contains(src, strings.Join(strings.Fields(w), " ")) {
					t.Errorf("no %s in\n%s", w, res.Source)
				}
			}
			if !strings.Contains(src, "func (r *SResponse) Events() iter.Seq2[runtime.Event[") {
				t.Errorf("no Events method in\n%s", res.Source)
			}
		})
	}
}

// TestRealSpecStreams: OpenAI's streamed operations (JSON or server-sent
// events, audio or events) get typed streams of their event schemas,
// beside the field of the other answer.
func TestRealSpecStreams(t *testing.T) {
	c := checkedModel(t, Config{Spec: filepath.Join(corpusDir, "openai.yaml")})
	var got []string
	for _, op := range c.Model.Operations {
		if ev := op.Events(); ev != nil {
			others := 0
			for _, r := range op.Responses {
				if r.Status == ev.Status && r != ev {
					others++
				}
			}
			got = append(got, fmt.Sprintf("%s %s %s+%d", op.ID, ev.Encoding, ev.Type.Name, others))
		}
	}
	want := []string{
		"createSpeech sse CreateSpeechResponseStreamEvent+1",
		"createTranscription sse CreateTranscriptionResponseStreamEvent+1",
		"createChatCompletion sse CreateChatCompletionStreamResponse+1",
		"createImageEdit sse ImageEditStreamEvent+1",
		"createImage sse ImageGenStreamEvent+1",
		"createResponse sse ResponseStreamEvent+1",
		"beta_createResponse sse BetaResponseStreamEvent+1",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("streamed operations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
