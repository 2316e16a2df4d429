// Command record drives the real opencode CLI against a scripted fake LLM
// provider and stores what it produced (its session store, spill files,
// exports and every request body it sent) as fixtures under
// testdata/opencode/<flavour>/.
//
// Run it from the repository root:
//
//	go run ./testdata/record [-flavour openai,anthropic,...]
//
// See README.md beside this file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// flavour is one recording: an opencode version, a provider and a wire protocol.
type flavour struct {
	Name       string
	Version    string // opencode-ai npm version
	ProviderID string
	ModelID    string
	Wire       string // chat, anthropic, gemini, responses, bedrock
	Legacy     bool   // 1.1.x JSON storage
	Lowering   string // "" (the AI SDK), "native" (OPENCODE_EXPERIMENTAL_NATIVE_LLM=1) or "v2" (opencode serve's v2 loop)
	Scenario   string // "" (script.go), "two" (scenario2.go) or "three" (scenario3.go)
}

func (f flavour) model() string { return f.ProviderID + "/" + f.ModelID }

const (
	currentVersion = "1.18.33"
	legacyVersion  = "1.1.65"
)

var allFlavours = []flavour{
	{Name: "openai", Version: currentVersion, ProviderID: "oracle-openai", ModelID: "oracle-model", Wire: "chat"},
	{Name: "anthropic", Version: currentVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-4-5", Wire: "anthropic"},
	{Name: "responses", Version: currentVersion, ProviderID: "openai", ModelID: "gpt-5", Wire: "responses"},
	{Name: "gemini", Version: currentVersion, ProviderID: "oracle-gemini", ModelID: "gemini-2.5-pro", Wire: "gemini"},
	{Name: "bedrock", Version: currentVersion, ProviderID: "amazon-bedrock", ModelID: "anthropic.claude-sonnet-4-5-20250929-v1:0", Wire: "bedrock"},
	{Name: "legacy", Version: legacyVersion, ProviderID: "oracle-openai", ModelID: "oracle-model", Wire: "chat", Legacy: true},
	{Name: "anthropic-native", Version: currentVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-4-5", Wire: "anthropic", Lowering: "native"},
	{Name: "responses-native", Version: currentVersion, ProviderID: "openai", ModelID: "gpt-5", Wire: "responses", Lowering: "native"},
	{Name: "v2", Version: currentVersion, ProviderID: "oracle-openai", ModelID: "oracle-model", Wire: "chat", Lowering: "v2"},
	{Name: "v2-anthropic", Version: currentVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-4-5", Wire: "anthropic", Lowering: "v2"},
	{Name: "local", Version: currentVersion, ProviderID: "oracle-local", ModelID: "oracle-local-model", Wire: "chat", Scenario: "two"},
	{Name: "anthropic-2", Version: currentVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-4-5", Wire: "anthropic", Scenario: "two"},
	{Name: "probe-claude", Version: currentVersion, ProviderID: "oracle-probe", ModelID: "claude-probe-4", Wire: "chat", Scenario: "three"},
	{Name: "probe-mistral", Version: currentVersion, ProviderID: "oracle-probe", ModelID: "mistral-probe-large", Wire: "chat", Scenario: "three"},
	{Name: "probe-legacy", Version: legacyVersion, ProviderID: "oracle-probe", ModelID: "devstral-probe", Wire: "chat", Legacy: true, Scenario: "three"},
	{Name: "probe-gemini", Version: currentVersion, ProviderID: "oracle-gemini", ModelID: "gemini-2.5-pro", Wire: "gemini", Scenario: "three"},
	{Name: "probe-native", Version: currentVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-4-5", Wire: "anthropic", Lowering: "native", Scenario: "three"},
	{Name: "probe-bedrock", Version: currentVersion, ProviderID: "amazon-bedrock", ModelID: "anthropic.claude-sonnet-4-5-20250929-v1:0", Wire: "bedrock", Scenario: "three"},
}

// options are the command-line flags.
type options struct {
	flavours []flavour
	outDir   string // testdata/opencode
	cacheDir string // npm installs and run logs
	home     string // the neutral HOME opencode runs under
	timeout  time.Duration
}

func main() {
	var (
		flavourList = flag.String("flavour", "all", "comma-separated flavours to record: "+flavourNames()+" (or all)")
		outDir      = flag.String("out", "testdata/opencode", "where the fixtures go (one folder per flavour)")
		cacheDir    = flag.String("cache", defaultCacheDir(), "where opencode is installed with npm, and run logs are kept")
		timeout     = flag.Duration("timeout", 6*time.Minute, "time limit for one opencode run")
		rebuild     = flag.Bool("rebuild-root", false, "only write root/ of existing fixtures from their record.json (scenario2.go: rebuildRoot)")
	)
	flag.Parse()
	if flag.NArg() > 0 {
		fatalf("unexpected arguments: %v", flag.Args())
	}
	opt := options{outDir: *outDir, cacheDir: *cacheDir, home: neutralHome, timeout: *timeout}
	fl, err := parseFlavours(*flavourList)
	if err != nil {
		fatalf("%v", err)
	}
	opt.flavours = fl
	if *rebuild {
		for _, f := range fl {
			if err := rebuildRoot(opt.outDir, f); err != nil {
				fatalf("%s: %v", f.Name, err)
			}
		}
		return
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fatalf("run this from the repository root (no go.mod here)")
	}
	if _, err := lookRipgrep(); err != nil {
		fatalf("%v", err)
	}
	lockRecorder(opt.home)
	if err := homeUsable(opt.home); err != nil {
		fatalf("%v", err)
	}
	if err := os.MkdirAll(opt.outDir, 0o755); err != nil {
		fatalf("%v", err)
	}
	var failed []string
	for _, f := range opt.flavours {
		start := time.Now()
		logf("=== %s: opencode %s, %s", f.Name, f.Version, f.model())
		record := recordFlavour
		if r, ok := agentRecorders[f.Name]; ok { // other agents than opencode
			record = r
		}
		if err := record(opt, f); err != nil {
			logf("=== %s FAILED after %s: %v", f.Name, time.Since(start).Round(time.Second), err)
			failed = append(failed, f.Name)
			continue
		}
		logf("=== %s done in %s", f.Name, time.Since(start).Round(time.Second))
	}
	if len(failed) > 0 {
		fatalf("flavours that failed: %s", strings.Join(failed, ", "))
	}
}

func flavourNames() string {
	var n []string
	for _, f := range allFlavours {
		n = append(n, f.Name)
	}
	return strings.Join(n, ",")
}

func parseFlavours(s string) ([]flavour, error) {
	if s == "" || s == "all" {
		return allFlavours, nil
	}
	var out []flavour
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, f := range allFlavours {
			if f.Name == name {
				out = append(out, f)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown flavour %q (known: %s)", name, flavourNames())
		}
	}
	return out, nil
}

func defaultCacheDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "correx-record")
	}
	return filepath.Join(home, ".cache", "correx-record")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[record %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func warnf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[record %s] WARNING: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "record: %s\n", fmt.Sprintf(format, args...))
	os.Exit(1)
}

var errRefuseHome = errors.New("refusing to touch the neutral home")

// agentRecorders record the flavours of other agents than opencode (each
// registered by its own file's init); the others go to recordFlavour.
var agentRecorders = map[string]func(options, flavour) error{}
