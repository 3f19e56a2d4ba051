package impl

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/resgen/resgen/runtime"
	"github.com/resgen/resgen/runtime/internal/link"
)

// pagesRT is the runtime's side of paging, registered with the rest (rt).
var pagesRT = link.Runtime().(interface {
	PagesOptions(opts []runtime.CallOption) (int, time.Duration)
	NextURLOption(next string) runtime.CallOption
})

// Pages is one iteration over the pages of an operation, for a generated
// XxxPagesOf method. Each page is a whole call of the operation's method
// (breaker, retries, idempotency key); Pages counts them against the
// maximum (runtime.WithMaxPages), remembers the cursors and next URLs the
// server named (a repeat would loop), bounds the iteration by
// runtime.WithPagesTotalTimeout and gives each page's call its options.
// One goroutine uses it, the one ranging over the iterator.
type Pages struct {
	name   string
	opts   []runtime.CallOption // the caller's, then a next URL's
	caller int                  // how many of opts are the caller's
	n, max int
	seen   map[string]struct{}
	cancel context.CancelFunc
}

// StartPages begins an iteration over the pages of operation name with
// the caller's options; the context it returns carries the iteration's
// total timeout, if any. Stop ends it.
func StartPages(ctx context.Context, name string, opts []runtime.CallOption) (*Pages, context.Context) {
	maxPages, total := pagesRT.PagesOptions(opts)
	p := &Pages{name: name, max: maxPages, opts: opts[:len(opts):len(opts)], caller: len(opts)}
	if total > 0 {
		ctx, p.cancel = context.WithTimeout(ctx, total)
	}
	return p, ctx
}

// Stop releases the iteration's timer.
func (p *Pages) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
}

// Next counts the page about to be fetched; past the maximum it is a
// *runtime.PageError and the page is not fetched.
func (p *Pages) Next() error {
	if p.n >= p.max {
		return p.stopped("the iteration reached its maximum of " + strconv.Itoa(p.max) + " pages (runtime.WithMaxPages)")
	}
	p.n++
	return nil
}

// Opts are the options of the next page's call.
func (p *Pages) Opts() []runtime.CallOption { return p.opts }

// Err is the error of a page's call, a next URL on another host numbered
// with the page that named it.
func (p *Pages) Err(err error) error {
	if pe, ok := errors.AsType[*runtime.PageError](err); ok && pe.Page == 0 {
		pe.Page = p.n - 1
	}
	return err
}

// Cursor takes the next page's cursor or token as the last page's answer
// gave it: "" (none) ends the iteration, one the server gave before is a
// *runtime.PageError.
func (p *Pages) Cursor(next string) (more bool, err error) {
	if next == "" {
		return false, nil
	}
	if p.seen == nil {
		p.seen = make(map[string]struct{})
	}
	if _, dup := p.seen[next]; dup {
		return false, p.stopped("the server named a next page it had named before (it would loop)")
	}
	p.seen[next] = struct{}{}
	return true, nil
}

// NextURL is Cursor for a next page's URL, where the next call goes
// (resolved against the operation's URL, on the same host only).
func (p *Pages) NextURL(next string) (more bool, err error) {
	if more, err = p.Cursor(next); more {
		p.opts = append(p.opts[:p.caller:p.caller], pagesRT.NextURLOption(next))
	}
	return more, err
}

// Offset is the offset of the next page after one of got items read at
// offset, asked for limit items (0: not known); a short or empty page
// ends the iteration.
func (p *Pages) Offset(offset int64, got, limit int) (next int64, more bool) {
	return offset + int64(got), got > 0 && (limit <= 0 || got >= limit)
}

// PageNumber is the number of the page after page at, which held got
// items; an empty page ends the iteration.
func (p *Pages) PageNumber(at int64, got int) (next int64, more bool) {
	return at + 1, got > 0
}

func (p *Pages) stopped(reason string) error {
	return &runtime.PageError{Operation: p.name, Page: p.n, Reason: reason}
}

// LinkNext is the target of the first rel="next" link of h's Link
// headers (RFC 8288), "" when there is none.
func LinkNext(h http.Header) string {
	for _, v := range h.Values("Link") {
		for v != "" {
			v = strings.TrimLeft(v, " \t,")
			if v == "" || v[0] != '<' {
				break // not a link-value: nothing more can be read
			}
			end := strings.IndexByte(v, '>')
			if end < 0 {
				break
			}
			target := v[1:end]
			v = v[end+1:]
			next := false
			// Parameters up to the comma that ends the link-value; a
			// quoted value may hold commas and semicolons.
			for {
				v = strings.TrimLeft(v, " \t")
				if v == "" || v[0] == ',' {
					break
				}
				if v[0] != ';' {
					v = v[1:] // junk: skip it
					continue
				}
				v = strings.TrimLeft(v[1:], " \t")
				i := strings.IndexAny(v, "=;,")
				if i < 0 {
					v = ""
					break
				}
				name := strings.TrimSpace(v[:i])
				if v[i] != '=' {
					v = v[i:]
					continue
				}
				v = strings.TrimLeft(v[i+1:], " \t")
				var val string
				if v != "" && v[0] == '"' {
					j := strings.IndexByte(v[1:], '"')
					if j < 0 {
						val, v = v[1:], ""
					} else {
						val, v = v[1:j+1], v[j+2:]
					}
				} else {
					j := strings.IndexAny(v, ";,")
					if j < 0 {
						j = len(v)
					}
					val, v = strings.TrimSpace(v[:j]), v[j:]
				}
				if strings.EqualFold(name, "rel") {
					for _, rel := range strings.Fields(val) {
						next = next || strings.EqualFold(rel, "next")
					}
				}
			}
			if next {
				return target
			}
		}
	}
	return ""
}

// Items yields the items of every page pages yields, in order, as a
// generated XxxPages method returns them: items gives a page's items; the
// first error ends it, yielded with a zero item.
func Items[R, T any](pages iter.Seq2[R, error], items func(R) []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page, err := range pages {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items(page) {
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}
