package build

import (
	"fmt"

	"github.com/resgen/resgen/generator/model"
	"github.com/resgen/resgen/generator/policy"
)

// keyParam marks mp, the declared header that policy found can carry
// the operation's idempotency key, as the key: optional (the client makes
// one when the caller leaves it nil), made as policy says (a UUID, or a
// random integer in the range the header's schema allows).
func (b *builder) keyParam(mp *model.Param, pol policy.Resolved) {
	mp.IdempotencyKey, mp.Required = true, false
	what := "one random key"
	if lo, hi, ok := pol.KeyInts(); ok {
		mp.KeyInts = &[2]int64{lo, hi}
		what = fmt.Sprintf("one random integer from %d to %d", lo, hi)
	}
	mp.Doc = append(mp.Doc, "Left nil, the client makes "+what+" per call and sends it on every attempt.")
}
