package opencode

// What an opencode model was declared to take, decided the way opencode
// 1.18.33 decides it (packages/opencode: config/config.ts loadInstanceState,
// config/paths.ts, config/variable.ts, provider/provider.ts, provider/
// models.ts): the user's config files merged in opencode's order, over the
// models.dev catalogue opencode caches. The files are read now, so they may
// have changed since the session ran; render lowers by the result.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"correx/model"
	"correx/sessions"
)

// Machine is where opencode's config files are read: this machine (Root
// "", the process environment), or a recorded fixture's copy of the
// recording machine's files (Root its root/ folder, Env the recording's
// environment). Paths inside it are the machine's own (/home/user/...).
type Machine struct {
	Root string
	Env  func(string) string
}

// ThisMachine is the machine correx runs on.
func ThisMachine() Machine { return Machine{Env: os.Getenv} }

// FixtureMachine is a recording's machine: its files under root, its
// environment env ("KEY=value" items).
func FixtureMachine(root string, env []string) Machine {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return Machine{Root: root, Env: func(k string) string { return vars[k] }}
}

func (m Machine) getenv(k string) string {
	if m.Env == nil {
		return ""
	}
	return m.Env(k)
}

// real is where a machine path is on this machine.
func (m Machine) real(p string) string {
	if m.Root == "" {
		return p
	}
	return filepath.Join(m.Root, filepath.FromSlash(p))
}

func (m Machine) exists(p string) bool {
	_, err := os.Stat(m.real(p))
	return err == nil
}

// Bounds of what is read: a config file, the models.dev catalogue (about
// 1 MB in 2026).
const (
	maxConfigFile = 4 << 20
	maxCatalogue  = 64 << 20
)

// read reads a machine file, only a regular one, at most limit bytes.
func (m Machine) read(p string, limit int64) ([]byte, error) {
	return sessions.ReadFileMax(m.real(p), limit)
}

// ConfigNames are the names an agent of opencode's pipeline reads its
// config and catalogue under: opencode's, or a fork's (RegisterConfig).
type ConfigNames struct {
	Dir      string   // under $XDG_CONFIG_HOME and $XDG_CACHE_HOME
	Global   []string // the config files in Dir, in merge order
	Project  []string // the project's config files, as its up() looks for them
	DotDirs  []string // project and home dirs of DotFiles (".opencode")
	DotFiles []string // the config files in a dot dir, $<Env>_CONFIG_DIR and Managed
	Env      string   // prefix of its variables (_CONFIG, _CONFIG_DIR, _CONFIG_CONTENT, _DISABLE_PROJECT_CONFIG, _MODELS_PATH, _MODELS_URL)
	Managed  string   // the managed config dir
	// ModelsURL is the catalogue URL cached as <cache>/models.json.
	ModelsURL string
}

// opencodeNames are opencode 1.18.33's.
var opencodeNames = ConfigNames{
	Dir: "opencode", Global: []string{"config.json", "opencode.json", "opencode.jsonc"},
	Project: []string{"opencode.jsonc", "opencode.json"}, DotDirs: []string{".opencode"},
	DotFiles: []string{"opencode.json", "opencode.jsonc"}, Env: "OPENCODE", Managed: "/etc/opencode",
	ModelsURL: "https://models.opencode.ai",
}

var forkConfigs struct {
	sync.RWMutex
	m map[model.Agent]ConfigNames
}

// RegisterConfig registers the config names of fork a of opencode
// (model.AgentSpec.Fork), from which its models' capabilities are decided
// as opencode decides them; twice panics.
func RegisterConfig(a model.Agent, n ConfigNames) {
	forkConfigs.Lock()
	defer forkConfigs.Unlock()
	if forkConfigs.m == nil {
		forkConfigs.m = map[model.Agent]ConfigNames{}
	}
	if _, dup := forkConfigs.m[a]; dup {
		panic("opencode: config names registered twice: " + string(a))
	}
	forkConfigs.m[a] = n
}

// configNames are the names agent a reads its config under.
func configNames(a model.Agent) ConfigNames {
	forkConfigs.RLock()
	defer forkConfigs.RUnlock()
	if n, ok := forkConfigs.m[a]; ok {
		return n
	}
	return opencodeNames
}

// ocPaths are opencode's Global.Path and home on a machine, and the
// agent's config names.
type ocPaths struct {
	home, config, cache string
	names               ConfigNames
}

func (m Machine) paths(names ConfigNames) ocPaths {
	home := m.getenv("HOME")
	if home == "" && m.Root == "" {
		home, _ = os.UserHomeDir()
	}
	xdg := func(env, def string) string {
		if v := m.getenv(env); v != "" {
			return v
		}
		return path.Join(home, def)
	}
	return ocPaths{home: home, config: path.Join(xdg("XDG_CONFIG_HOME", ".config"), names.Dir),
		cache: path.Join(xdg("XDG_CACHE_HOME", ".cache"), names.Dir), names: names}
}

// tilde shows a machine path under the home as ~/….
func (p ocPaths) tilde(s string) string {
	if p.home != "" && p.home != "/" && strings.HasPrefix(s, p.home+"/") {
		return "~" + s[len(p.home):]
	}
	return s
}

// configLayer is one config source in opencode's merge order.
type configLayer struct {
	name  string // shown: a path, or $OPENCODE_CONFIG_CONTENT
	value map[string]any
}

// ModelRef names a model as opencode stores it on a step.
type ModelRef struct{ ProviderID, ModelID string }

// SessionModels are the models of a session's steps, each once, in order.
func SessionModels(s *model.Session) []ModelRef {
	var models []ModelRef
	seen := map[ModelRef]bool{}
	for _, i := range s.AssistantSteps() {
		k := ModelRef{s.Messages[i].ProviderID, s.Messages[i].ModelID}
		if k.ModelID != "" && !seen[k] {
			seen[k] = true
			models = append(models, k)
		}
	}
	return models
}

// Capabilities decides the capabilities of every model the
// session's steps used (ModelCapabilities).
func Capabilities(s *model.Session, mc Machine) (model.SessionCapabilities, []string) {
	return ModelCapabilities(s.Info, SessionModels(s), mc)
}

// ModelCapabilities decides the capabilities of models for a
// session of info (its directory says which project files count). Problems reading the files (a bad JSONC, a missing {file:}) are
// returned as warnings naming the file; the file is then left out, as
// opencode would have refused to start with it.
func ModelCapabilities(info model.SessionInfo, models []ModelRef, mc Machine) (model.SessionCapabilities, []string) {
	var caps model.SessionCapabilities
	if !info.Agent.UsesOpencode() || len(models) == 0 {
		return caps, nil
	}
	p := mc.paths(configNames(info.Agent))
	layers, warns := configLayers(mc, p, info.Directory, worktreeOf(mc, info.Directory))
	cat, catNote := readCatalogue(mc, p)
	if cat.err != nil {
		warns = append(warns, cat.err.Error())
	}
	for _, k := range models {
		caps.Models = append(caps.Models, decide(k.ProviderID, k.ModelID, layers, cat, catNote))
	}
	return caps, warns
}

// worktreeOf is the session's project worktree, where opencode stops
// looking for project config: the nearest directory holding .git (a git
// repository's top level, as opencode's project detection finds it), or
// "/". opencode's store records it too, but an export does not, and the
// repository is where the config files are.
func worktreeOf(mc Machine, dir string) string {
	for d := dir; d != "" && d != "/" && d != "."; d = path.Dir(d) {
		if mc.exists(path.Join(d, ".git")) {
			return d
		}
	}
	return "/"
}

// up is opencode's Filesystem.up: from start to stop (or the root), each
// target that exists in each directory, nearest first.
func up(mc Machine, targets []string, start, stop string) []string {
	var out []string
	for dir := start; ; {
		for _, t := range targets {
			if p := path.Join(dir, t); mc.exists(p) {
				out = append(out, p)
			}
		}
		parent := path.Dir(dir)
		if dir == stop || parent == dir || dir == "" {
			return out
		}
		dir = parent
	}
}

func truthy(v string) bool { v = strings.ToLower(v); return v == "true" || v == "1" }

// configLayers reads opencode's config sources in its merge order (later
// wins): the global config dir's config.json, opencode.json,
// opencode.jsonc; $OPENCODE_CONFIG; the project's opencode.json[c] from the
// worktree root down to the session's directory; opencode.json[c] in each
// .opencode dir (nearest first), ~/.opencode and $OPENCODE_CONFIG_DIR;
// $OPENCODE_CONFIG_CONTENT; the managed dir /etc/opencode. Remote configs
// (.well-known, a console org) and plugins are not followed.
func configLayers(mc Machine, p ocPaths, dir, worktree string) ([]configLayer, []string) {
	var layers []configLayer
	var warns []string
	add := func(file string) {
		b, err := mc.read(file, maxConfigFile)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err == nil {
			var v map[string]any
			if v, err = parseConfig(mc, p, b, path.Dir(file)); err == nil {
				layers = append(layers, configLayer{name: p.tilde(file), value: v})
				return
			}
		}
		warns = append(warns, fmt.Sprintf("opencode config %s: %v (left out; opencode would not start with it)", p.tilde(file), err))
	}
	n := p.names
	for _, f := range n.Global {
		add(path.Join(p.config, f))
	}
	if f := mc.getenv(n.Env + "_CONFIG"); f != "" {
		add(f)
	}
	noProject := truthy(mc.getenv(n.Env + "_DISABLE_PROJECT_CONFIG"))
	if !noProject && dir != "" {
		files := up(mc, n.Project, dir, worktree)
		for i := len(files) - 1; i >= 0; i-- {
			add(files[i])
		}
	}
	dirs := []string{p.config}
	if !noProject && dir != "" {
		dirs = append(dirs, up(mc, n.DotDirs, dir, worktree)...)
	}
	dirs = append(dirs, up(mc, n.DotDirs, p.home, p.home)...)
	cfgDir := mc.getenv(n.Env + "_CONFIG_DIR")
	if cfgDir != "" {
		dirs = append(dirs, cfgDir)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] || !(slices.Contains(n.DotDirs, path.Base(d)) || d == cfgDir) {
			continue
		}
		seen[d] = true
		for _, f := range n.DotFiles {
			add(path.Join(d, f))
		}
	}
	if text := mc.getenv(n.Env + "_CONFIG_CONTENT"); text != "" {
		if v, err := parseConfig(mc, p, []byte(text), dir); err == nil {
			layers = append(layers, configLayer{name: "$" + n.Env + "_CONFIG_CONTENT", value: v})
		} else {
			warns = append(warns, fmt.Sprintf("opencode config $%s_CONFIG_CONTENT: %v (left out)", n.Env, err))
		}
	}
	managed := mc.getenv(n.Env + "_TEST_MANAGED_CONFIG_DIR")
	if managed == "" {
		managed = n.Managed
	}
	for _, f := range n.DotFiles {
		add(path.Join(managed, f))
	}
	return layers, warns
}

var (
	envRef  = regexp.MustCompile(`\{env:([^}]+)\}`)
	fileRef = regexp.MustCompile(`\{file:[^}]+\}`)
)

// parseConfig is opencode's ConfigVariable.substitute and ConfigParse.jsonc:
// {env:NAME} becomes the variable's value as it is, {file:PATH} (not on a
// // comment line) the file's trimmed text escaped for a JSON string, PATH
// relative to dir or ~/; then JSONC with comments and trailing commas.
func parseConfig(mc Machine, p ocPaths, b []byte, dir string) (map[string]any, error) {
	text := envRef.ReplaceAllStringFunc(string(b), func(s string) string {
		return mc.getenv(envRef.FindStringSubmatch(s)[1])
	})
	var out strings.Builder
	last := 0
	for _, loc := range fileRef.FindAllStringIndex(text, -1) {
		out.WriteString(text[last:loc[0]])
		last = loc[1]
		ref := text[loc[0]:loc[1]]
		lineStart := strings.LastIndexByte(text[:loc[0]], '\n') + 1
		if strings.HasPrefix(strings.TrimLeft(text[lineStart:loc[0]], " \t\r\n\v\f"), "//") {
			out.WriteString(ref)
			continue
		}
		f := strings.TrimSuffix(strings.TrimPrefix(ref, "{file:"), "}")
		switch {
		case strings.HasPrefix(f, "~/"):
			f = path.Join(p.home, f[2:])
		case !path.IsAbs(f):
			f = path.Join(dir, f)
		}
		content, err := mc.read(f, maxConfigFile)
		if err != nil {
			return nil, fmt.Errorf("bad file reference: %q %s: %v", ref, p.tilde(f), err)
		}
		esc, _ := json.Marshal(strings.TrimSpace(string(content)))
		out.Write(esc[1 : len(esc)-1])
	}
	out.WriteString(text[last:])
	plain, err := stripJSONC([]byte(out.String()))
	if err != nil {
		return nil, err
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(plain))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return v, nil
}

// stripJSONC turns JSONC into JSON: comments become spaces, a comma before
// a closing bracket is dropped.
func stripJSONC(b []byte) ([]byte, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			j := i + 1
			for ; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if j >= len(b) {
				return nil, errors.New("unterminated string")
			}
			out = append(out, b[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return nil, errors.New("unterminated comment")
			}
			i += end + 3
			out = append(out, ' ')
		case c == '}' || c == ']':
			k := len(out) - 1
			for k >= 0 && (out[k] == ' ' || out[k] == '\t' || out[k] == '\n' || out[k] == '\r') {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out[k] = ' '
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// catalogue is the models.dev catalogue opencode cached.
type catalogue struct {
	path      string // shown
	providers map[string]catProvider
	err       error // it is there but could not be read
}

type catProvider struct {
	NPM    string                    `json:"npm"`
	Models map[string]map[string]any `json:"models"`
}

// readCatalogue reads $OPENCODE_MODELS_PATH or <cache>/models.json; note
// says why it is not there.
func readCatalogue(mc Machine, p ocPaths) (cat catalogue, note string) {
	file := mc.getenv(p.names.Env + "_MODELS_PATH")
	if file == "" {
		if u := mc.getenv(p.names.Env + "_MODELS_URL"); u != "" && u != p.names.ModelsURL {
			return cat, "$" + p.names.Env + "_MODELS_URL is set, and correx does not know the name opencode caches its catalogue under"
		}
		file = path.Join(p.cache, "models.json")
	}
	cat.path = p.tilde(file)
	b, err := mc.read(file, maxCatalogue)
	if errors.Is(err, os.ErrNotExist) {
		return cat, "the models.dev catalogue " + cat.path + " is not there (opencode then uses the snapshot built into it, which correx cannot read)"
	}
	if err == nil {
		err = json.Unmarshal(b, &cat.providers)
	}
	if err != nil {
		cat.providers = nil
		cat.err = fmt.Errorf("models.dev catalogue %s: %v (left out)", cat.path, err)
		return cat, "the models.dev catalogue " + cat.path + " could not be read"
	}
	return cat, ""
}

// lookup is the value at keys in a JSON object, if there.
func lookup(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = o[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// lastLayer is the last layer with a value at keys (later layers win: a
// leaf, or an array, replaces; objects merge), and that value.
func lastLayer(layers []configLayer, keys ...string) (name string, v any, ok bool) {
	for _, l := range layers {
		if x, found := lookup(l.value, keys...); found {
			if _, isObj := x.(map[string]any); !isObj || !ok {
				name, v, ok = l.name, x, true
			} else if prev, isPrevObj := v.(map[string]any); isPrevObj {
				v = mergeDeep(prev, x.(map[string]any))
				name = l.name
			} else {
				name, v = l.name, x
			}
		}
	}
	return name, v, ok
}

// mergeDeep is remeda's mergeDeep, opencode's config merge: objects merge
// key by key, anything else is replaced.
func mergeDeep(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bo, ok := v.(map[string]any); ok {
			if ao, ok := out[k].(map[string]any); ok {
				out[k] = mergeDeep(ao, bo)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// inputsOf is the input kinds a modalities.input list names.
func inputsOf(list any) []model.InputKind {
	arr, _ := list.([]any)
	var out []model.InputKind
	for _, k := range model.InputKinds {
		for _, x := range arr {
			if x == string(k) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// interleavedField is a declared interleaved value's field: a string is
// the field, {"field": …} names it, anything else names none.
func interleavedField(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		f, _ := x["field"].(string)
		return f
	}
	return ""
}

func str(v any, keys ...string) string {
	x, _ := lookup(v, keys...)
	s, _ := x.(string)
	return s
}

// decide is opencode's Provider state for one model: a model the config
// declares takes its modalities and interleaved from there, else from the
// catalogue entry it names; a model only the catalogue has takes them from
// the catalogue.
func decide(providerID, modelID string, layers []configLayer, cat catalogue, catNote string) model.Capabilities {
	c := model.Capabilities{ProviderID: providerID, ModelID: modelID}
	inConfig, entry, declared := lastLayer(layers, "provider", providerID, "models", modelID)
	_, provider, _ := lastLayer(layers, "provider", providerID)
	catProv, catHas := cat.providers[providerID]
	apiID := modelID
	if id := str(entry, "id"); declared && id != "" {
		apiID = id
	}
	catModel, catHasModel := catProv.Models[apiID]
	catHasModel = catHas && catHasModel
	catNPM := func() string {
		if n := str(catModel, "provider", "npm"); n != "" {
			return n
		}
		if catProv.NPM != "" {
			return catProv.NPM
		}
		return "@ai-sdk/openai-compatible"
	}
	if !declared {
		if !catHasModel {
			why := providerID + "/" + modelID + " is declared in no opencode config correx read"
			if catNote != "" {
				why += ", and " + catNote
			} else {
				why += " nor in the models.dev catalogue " + cat.path
			}
			return model.AssumedCapabilities(providerID, modelID, why)
		}
		c.Input = inputsOf(lookupOr(catModel, "modalities", "input"))
		c.Interleaved = interleavedField(lookupOr(catModel, "interleaved"))
		c.NPM, c.Source = catNPM(), "the models.dev catalogue "+cat.path
		return c
	}
	c.NPM = cmp.Or(str(entry, "provider", "npm"), str(provider, "npm"))
	if c.NPM == "" && catHasModel {
		c.NPM = catNPM()
	}
	if c.NPM == "" {
		c.NPM = cmp.Or(catProv.NPM, "@ai-sdk/openai-compatible")
	}
	if file, list, ok := lastLayer(layers, "provider", providerID, "models", modelID, "modalities", "input"); ok {
		c.Input, c.Source = inputsOf(list), file
	} else if catHasModel {
		c.Input, c.Source = inputsOf(lookupOr(catModel, "modalities", "input")), "the models.dev catalogue "+cat.path
	} else if catNote != "" {
		// the catalogue opencode read may have had the model
		return model.AssumedCapabilities(providerID, modelID, providerID+"/"+modelID+" is declared in "+inConfig+
			" without modalities, and "+catNote)
	} else {
		c.Source = inConfig + " (no modalities: opencode's default, text only)"
	}
	if _, v, ok := lastLayer(layers, "provider", providerID, "models", modelID, "interleaved"); ok {
		c.Interleaved = interleavedField(v)
	} else if catHasModel {
		c.Interleaved = interleavedField(lookupOr(catModel, "interleaved"))
	} else if c.NPM == "@ai-sdk/openai-compatible" && strings.Contains(apiID, "deepseek") {
		c.Interleaved = "reasoning_content"
	}
	return c
}

func lookupOr(v any, keys ...string) any {
	x, _ := lookup(v, keys...)
	return x
}
