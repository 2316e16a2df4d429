package sessions

import (
	"context"

	"correx/model"
)

// QuickLister is a store that can list its sessions without counting
// their calls, in a few milliseconds however large the store: the
// picker's first screen, before List's counts. Its infos are Uncounted.
type QuickLister interface {
	ListQuick(ctx context.Context) ([]model.SessionInfo, error)
}

// ListQuick is s's quick list; ok false when s cannot give one (a
// combined store can when each of its stores can).
func ListQuick(ctx context.Context, s Store) (infos []model.SessionInfo, ok bool, err error) {
	if m, isMulti := s.(*multi); isMulti {
		for _, st := range m.stores {
			got, ok, err := ListQuick(ctx, st)
			if !ok || err != nil {
				return nil, ok, err
			}
			infos = append(infos, got...)
		}
		sortInfos(infos)
		return infos, true, nil
	}
	q, isQuick := s.(QuickLister)
	if !isQuick {
		return nil, false, nil
	}
	infos, err = q.ListQuick(ctx)
	return infos, true, err
}
