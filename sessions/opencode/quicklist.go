package opencode

import (
	"context"
	"fmt"

	"correx/model"
)

// quickListSQL is the session rows with their pipeline: v2 when the
// session has no message row but session_message rows (each an index
// probe, as listed decides it from the counts). %s is whether a
// session_message row exists, or 0 without the table.
const quickListSQL = `
SELECT s.id, s.parent_id, s.title, s.directory, s.version, s.time_created, s.time_updated,
       NOT EXISTS (SELECT 1 FROM message WHERE session_id = s.id) AND %s
FROM session s
ORDER BY s.time_updated DESC, s.id`

// ListQuick implements sessions.QuickLister: the session table alone.
func (s *sqliteStore) ListQuick(ctx context.Context) ([]model.SessionInfo, error) {
	return stable(s, func() ([]model.SessionInfo, error) { return s.listQuick(ctx) })
}

func (s *sqliteStore) listQuick(ctx context.Context) ([]model.SessionInfo, error) {
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
		info := r.info(s.path, s.opts)
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
