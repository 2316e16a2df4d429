package tui

// Every agent driver is registered in these tests (the properties over
// every fixture open them all).
import _ "correx/sessions/all"
