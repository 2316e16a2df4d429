package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// lookRipgrep finds rg: opencode's glob and grep tools run it from PATH and
// would otherwise try to download it, which cannot work offline.
func lookRipgrep() (string, error) {
	p, err := exec.LookPath("rg")
	if err != nil {
		return "", errors.New("ripgrep (rg) is not on PATH: opencode's glob and grep tools need it; install it first, e.g. `apt-get install -y ripgrep`")
	}
	return p, nil
}

// ensureOpencode installs opencode-ai@version with npm into the cache (once)
// and returns the path of the platform binary.
func ensureOpencode(cacheDir, version string) (string, error) {
	dir := filepath.Join(cacheDir, "npm-"+version)
	if bin, err := findOpencodeBinary(dir, version); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New("npm is not on PATH: it is needed once to install opencode-ai")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	logf("installing opencode-ai@%s into %s", version, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "opencode-ai@"+version)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install opencode-ai@%s: %v\n%s", version, err, out.String())
	}
	return findOpencodeBinary(dir, version)
}

// findOpencodeBinary picks the platform package's executable (the npm
// wrapper of 1.1.x is a Node script; the binary underneath is what it runs).
func findOpencodeBinary(dir, version string) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	candidates := []string{
		filepath.Join(dir, "node_modules", "opencode-"+runtime.GOOS+"-"+arch, "bin", "opencode"),
		filepath.Join(dir, "node_modules", "opencode-"+runtime.GOOS+"-"+arch+"-baseline", "bin", "opencode"),
	}
	for _, c := range candidates {
		st, err := os.Stat(c)
		if err != nil || st.IsDir() {
			continue
		}
		out, err := exec.Command(c, "--version").Output()
		if err != nil {
			continue
		}
		got := strings.TrimSpace(string(out))
		if got != version {
			return "", fmt.Errorf("%s reports version %q, want %s", c, got, version)
		}
		return c, nil
	}
	return "", fmt.Errorf("no opencode binary for %s/%s under %s", runtime.GOOS, arch, dir)
}
