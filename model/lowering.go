package model

// Lowering names the code that turned opencode's conversation into a
// provider request: the Vercel AI SDK converters (the default of the v1
// loop) or opencode's own packages/llm protocols ("native": the v1 loop
// with OPENCODE_EXPERIMENTAL_NATIVE_LLM=1, and always the v2 loop). Where
// they differ, the model saw different bytes.
type Lowering string

const (
	LoweringAISDK  Lowering = "ai-sdk"
	LoweringNative Lowering = "native"
)

// ParseLowering checks a lowering name; "" gives "".
func ParseLowering(s string) (Lowering, bool) {
	switch Lowering(s) {
	case "", LoweringAISDK, LoweringNative:
		return Lowering(s), true
	}
	return "", false
}
