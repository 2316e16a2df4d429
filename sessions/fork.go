package sessions

import "correx/model"

// OpencodeDB says whose opencode-layout SQLite store a fork's driver opens
// with opencode's reader (OpenOpencodeDB): Kilo Code keeps opencode's
// tables in its own kilo.db.
type OpencodeDB struct {
	// Agent its sessions are of (registered with model.AgentSpec.Fork
	// opencode, so that every layer treats them as opencode's).
	Agent model.Agent
	// DataDir is the agent's data dir, where its spills are looked up;
	// "" means the database's folder.
	DataDir string
}

// OpenOpencodeDB opens an opencode-layout database of a fork: opencode's
// reader (v1 and v2 rows, outline loads, damaged pages, read-only and WAL
// rules) with sessions of o.Agent. The store is opencode's own type, so
// LazyFor and the live re-listing work on it as on opencode.db.
func OpenOpencodeDB(path string, o OpencodeDB) (Store, error) {
	return openOpencodeDB(path, o)
}
