package formatters_test

// Every agent driver is registered in these tests (TestConformance and the
// properties over every fixture open them all).
import _ "correx/sessions/all"
