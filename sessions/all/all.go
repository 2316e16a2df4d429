// Package all registers every agent driver (sessions.Driver): import it
// for its side effect wherever sessions are opened. Adding an agent is its
// driver package under sessions/ and one import line here.
package all

import (
	_ "correx/sessions/claudecode"
	_ "correx/sessions/cline"
	_ "correx/sessions/codex"
	_ "correx/sessions/copilot"
	_ "correx/sessions/crush"
	_ "correx/sessions/geminicli"
	_ "correx/sessions/kilo"
	_ "correx/sessions/opencode"
	_ "correx/sessions/qwencode"
)
