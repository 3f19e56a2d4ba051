package conformance

import (
	"fmt"
	"strings"

	"github.com/resgen/resgen/generator/model"
)

// Coverage counts one kind of body the harness must judge, never skip:
// the spec's operations with it, those a call reached, the calls that
// carried it and those whose bytes (or events) were compared with what
// was sent.
type Coverage struct {
	Operations, Called, Calls, Judged int
}

func (c Coverage) String() string {
	return fmt.Sprintf("%d operations (%d called), %d calls, %d judged", c.Operations, c.Called, c.Calls, c.Judged)
}

// streamMediaType reports whether ct is a stream of events (SSE, JSON
// lines).
func streamMediaType(ct string) bool {
	switch mediaBase(ct) {
	case "text/event-stream", "application/jsonl", "application/x-ndjson", "application/json-seq":
		return true
	}
	return false
}

// downloadOp, uploadOp and streamOp classify an operation by its model.
func downloadOp(op *model.Operation) bool {
	if strings.EqualFold(op.Method, "head") {
		return false // HTTP gives it no body
	}
	for _, r := range op.Responses {
		if r.Encoding == model.ResponseStream && !streamMediaType(r.ContentType) {
			return true
		}
	}
	return false
}

func uploadOp(op *model.Operation) bool {
	bodies := []*model.Body{op.Body}
	for _, v := range op.Variants {
		bodies = append(bodies, v.Body)
	}
	for _, b := range bodies {
		if b == nil {
			continue
		}
		if b.Encoding == model.BodyBytes {
			return true
		}
		for _, p := range b.Parts {
			if p.Kind == model.PartFile || p.Kind == model.PartFiles {
				return true
			}
		}
	}
	return false
}

func streamOp(op *model.Operation) bool {
	for _, r := range op.Responses {
		if streamMediaType(r.ContentType) {
			return true
		}
	}
	return false
}

// coverageOf counts the operations of each kind and the planned calls
// that carry it (Judged is counted as the calls are judged).
func coverageOf(ops []*model.Operation, planned []*call) (down, up, stream Coverage) {
	called := map[*model.Operation][3]bool{}
	for _, c := range planned {
		k := called[c.op]
		if c.download {
			down.Calls++
			k[0] = true
		}
		if c.upload {
			up.Calls++
			k[1] = true
		}
		if c.events != "" {
			stream.Calls++
			k[2] = true
		}
		called[c.op] = k
	}
	for _, op := range ops {
		k := called[op]
		for i, is := range []bool{downloadOp(op), uploadOp(op), streamOp(op)} {
			cov := []*Coverage{&down, &up, &stream}[i]
			if is {
				cov.Operations++
				if k[i] {
					cov.Called++
				}
			}
		}
	}
	return down, up, stream
}
