package sessions

import (
	"context"
	"fmt"

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

// quickListSQL is the session rows with their pipeline: v2 when the
// session has no message row but session_message rows (each an index
// probe, as listed decides it from the counts). %s is whether a
// session_message row exists, or 0 without the table.
const quickListSQL = `
SELECT s.id, s.parent_id, s.title, s.directory, s.version, s.time_created, s.time_updated,
       NOT EXISTS (SELECT 1 FROM message WHERE session_id = s.id) AND %s
FROM session s
ORDER BY s.time_updated DESC, s.id`

// ListQuick implements QuickLister: the session table alone.
func (s *sqliteStore) ListQuick(ctx context.Context) ([]model.SessionInfo, error) {
	s.reopenIfWAL()
	v2 := "0"
	if s.v2Table {
		v2 = "EXISTS (SELECT 1 FROM session_message WHERE session_id = s.id)"
	}
	rows, err := s.c().db.QueryContext(ctx, fmt.Sprintf(quickListSQL, v2))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.path, err)
	}
	defer rows.Close()
	var infos []model.SessionInfo
	for rows.Next() {
		var r sessionRow
		var isV2 bool
		if err := rows.Scan(&r.id, &r.parent, &r.title, &r.dir, &r.version, &r.created, &r.updated, &isV2); err != nil {
			return nil, fmt.Errorf("list %s: %w", s.path, err)
		}
		info := r.info(s.path, s.dataDir())
		if isV2 {
			info.Pipeline = model.PipelineV2
		}
		info.Uncounted = true
		infos = append(infos, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", s.path, err)
	}
	return infos, nil
}
