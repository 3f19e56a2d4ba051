package runtime

import (
	"time"

	"github.com/resgen/resgen/runtime/internal/link"
)

// What only generated code and the generator call is package impl's: it
// reaches the engine through api, registered once here, so that none of
// it is in this package's API (see the package doc).
func init() { link.Register(api{}) }

// api is the runtime's side of package impl: each method is the impl
// function of the same name.
type api struct{}

func (api) NewEngine(cfg config) any                { return newEngine(cfg) }
func (api) DescribeConfig(cfg config) string        { return describeConfig(cfg) }
func (api) ServerURL(server string) (string, error) { return serverURL(server) }
func (api) ReadOverridesFile(path string) ([]byte, error) {
	return readOverridesFile(path)
}

func (api) DecodeBreaker(p *BreakerPolicy, m map[string]any, own ...string) error {
	return decodeBreaker(p, m, own...)
}

func (api) DecodeRetry(p *RetryPolicy, m map[string]any, own ...string) error {
	return decodeRetry(p, m, own...)
}

func (api) DecodeTimeouts(s *operationSpec, m map[string]any, own ...string) error {
	return decodeTimeouts(s, m, own...)
}

func (api) PagesOptions(opts []CallOption) (int, time.Duration) { return pagesOptions(opts) }
func (api) NextURLOption(next string) CallOption                { return nextURLOption(next) }
