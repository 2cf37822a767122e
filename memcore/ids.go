package memcore

import (
	"context"
	"strings"
)

// IDsWithPrefix returns the ids of live and quarantined atoms that start
// with prefix, for resolving the short ids a person types.
func (s *Store) IDsWithPrefix(ctx context.Context, prefix string) (live, quarantined []string, err error) {
	err = s.read(ctx, func() {
		if e := s.byID[prefix]; e != nil {
			live = []string{prefix}
		}
		for _, e := range s.order {
			if id := e.atom.ID; id != prefix && strings.HasPrefix(id, prefix) {
				live = append(live, id)
			}
		}
		for _, q := range s.quar {
			if strings.HasPrefix(q.ID, prefix) {
				quarantined = append(quarantined, q.ID)
			}
		}
	})
	return live, quarantined, err
}
