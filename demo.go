package main

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"

	"correx/sessions"
)

// demo is the store of a real opencode 1.18.33 run, recorded by
// testdata/record: a session that uses every tool, truncates with spill
// files, fails, reads an image and runs a subagent.
//
//go:embed testdata/opencode/anthropic/data
var demo embed.FS

const demoDir = "testdata/opencode/anthropic/data"

// openDemo writes the embedded demo to a temporary directory and opens it;
// cleanup removes the directory.
func openDemo() (sessions.Store, func(), error) {
	dir, err := os.MkdirTemp("", "correx-demo-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	if err := os.CopyFS(dir, mustSub(demo, demoDir)); err != nil {
		cleanup()
		return nil, nil, err
	}
	st, err := sessions.Open(filepath.Join(dir, "opencode.db"))
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return st, cleanup, nil
}

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
