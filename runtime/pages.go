package runtime

import (
	"net/url"
	"strconv"
	"time"
)

// Paging: the call options of an iteration over pages (a generated
// XxxPages or XxxPagesOf method), the error that stops one before the
// last page, and the next URL that a nextURL or link page is fetched at.

// DefaultMaxPages is how many pages an iteration fetches at most unless
// WithMaxPages says otherwise: a server that never stops paging (a loop
// resgen cannot see, one cursor after another) ends in a *PageError.
const DefaultMaxPages = 10000

// WithPagesTotalTimeout bounds a whole iteration over pages by d: every
// page's call, its retries and the caller's work between pages share it,
// while each call keeps its own attempt and total timeouts within it
// (d <= 0: none, the default). A single call ignores it.
func WithPagesTotalTimeout(d time.Duration) CallOption {
	return CallOption{kind: optPagesTotal, d: d}
}

// WithMaxPages bounds an iteration over pages to n pages (at least 1;
// DefaultMaxPages when not given): asked for page n+1, it stops with a
// *PageError instead. A single call ignores it.
func WithMaxPages(n int) CallOption { return CallOption{kind: optMaxPages, n: n} }

// PageError stops an iteration over pages when the next page the server
// names is not fetched: it repeats a cursor, token or next URL of the same
// iteration (the server would loop), it lies beyond the iteration's
// maximum number of pages, or its next URL is on another host than the
// client's server (a credential would go there).
type PageError struct {
	// Operation is the operation's name.
	Operation string
	// Page is the number (from 1) of the page whose answer named the next
	// page that is not fetched.
	Page int
	// Reason says why, without the cursor or URL (which may be secret).
	Reason string
}

func (e *PageError) Error() string {
	return e.Operation + ": paging stopped after page " + strconv.Itoa(e.Page) + ": " + e.Reason
}

// pagesOptions reads the paging options of opts: the iteration's maximum
// number of pages and its total timeout (0: none).
func pagesOptions(opts []CallOption) (maxPages int, total time.Duration) {
	maxPages = DefaultMaxPages
	for i := range opts {
		switch o := &opts[i]; o.kind {
		case optPagesTotal:
			total = max(o.d, 0)
		case optMaxPages:
			maxPages = max(o.n, 1)
		}
	}
	return maxPages, total
}

// nextURLOption makes a call go to next, a next page's URL as the server
// wrote it (absolute, or relative to the operation's URL).
func nextURLOption(next string) CallOption { return CallOption{kind: optNextURL, value: next} }

// nextTarget is u, a call's URL, or the next URL an option of opts names,
// resolved against u; on another scheme or host it is a *PageError (the
// iteration sets its page), and the call sends nothing.
func nextTarget(name string, u url.URL, opts []CallOption) (url.URL, error) {
	for i := range opts {
		o := &opts[i]
		if o.kind != optNextURL {
			continue
		}
		next, err := u.Parse(o.value)
		if err != nil {
			return u, &PageError{Operation: name, Reason: "the next page's URL does not parse"}
		}
		if next.Scheme != u.Scheme || next.Host != u.Host {
			return u, &PageError{Operation: name, Reason: "the next page's URL is on " + next.Scheme + "://" + next.Host + ", not on the client's server " + u.Scheme + "://" + u.Host}
		}
		next.Fragment, next.RawFragment = "", ""
		return *next, nil
	}
	return u, nil
}
