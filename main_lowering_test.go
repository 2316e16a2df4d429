package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --lowering against the native and v2 recordings.

// lastMain is lastRequest of a recording that may be absent (then skipped).
func lastMain(t *testing.T, dir string) (entry, map[string]any) {
	if _, err := os.Stat(filepath.Join(dir, "requests", "manifest.json")); os.IsNotExist(err) {
		t.Skip("no recording in " + dir)
	}
	return lastRequest(t, dir)
}

func TestLoweringFlag(t *testing.T) {
	const native = "testdata/opencode/anthropic-native"
	last, body := lastMain(t, native)
	src := native + "/data"

	out, stderr, code := correx(t, "wire", "--source", src, "--session", last.Session, "--provider", "anthropic", "--lowering", "native")
	require.Equal(t, 0, code, stderr)
	var got any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, body["messages"], got)

	// the image read: the JSON string with --lowering native, the text
	// item without
	var img string
	for _, m := range body["messages"].([]any) {
		for _, b := range m.(map[string]any)["content"].([]any) {
			if c, ok := b.(map[string]any)["content"].(string); ok && strings.HasPrefix(c, `[{"type":"text","text":"Image read successfully"}`) {
				img = b.(map[string]any)["tool_use_id"].(string)
				out, stderr, code = correx(t, "show", "--source", src, "--session", last.Session, "--call", img, "--lowering", "native")
				require.Equal(t, 0, code, stderr)
				assert.Equal(t, c, out)
			}
		}
	}
	require.NotEmpty(t, img, "the recording reads an image")
	out, _, code = correx(t, "show", "--source", src, "--session", last.Session, "--call", img)
	require.Equal(t, 0, code)
	assert.Equal(t, "Image read successfully", out)
	// OpenAI Chat takes no media in tool results: the v1 conversion moved
	// them out before the native lowering, which then sends the text
	out, stderr, code = correx(t, "show", "--source", src, "--session", last.Session, "--call", img, "--lowering", "native", "--provider", "openai-chat")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "Image read successfully", out)
	_, stderr, code = correx(t, "show", "--source", src, "--session", last.Session, "--call", img, "--provider", "chat")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown provider "chat"`)

	_, stderr, code = correx(t, "wire", "--source", src, "--session", last.Session, "--provider", "anthropic", "--lowering", "vercel")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown lowering "vercel"`)
}

func TestV2SessionDefaultsToNative(t *testing.T) {
	const v2 = "testdata/opencode/v2"
	last, body := lastMain(t, v2)
	src := v2 + "/data"
	out, stderr, code := correx(t, "wire", "--source", src, "--session", last.Session, "--provider", "openai-chat")
	require.Equal(t, 0, code, stderr)
	var got any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	var want []any
	for _, m := range body["messages"].([]any) {
		if m.(map[string]any)["role"] != "system" {
			want = append(want, m)
		}
	}
	assert.Equal(t, want, got)

	_, stderr, code = correx(t, "wire", "--source", src, "--session", last.Session, "--provider", "openai-chat", "--lowering", "ai-sdk")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "v2 session")
}
