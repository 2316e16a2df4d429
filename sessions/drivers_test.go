package sessions_test

// Every agent driver is registered in the test binary of package sessions
// (its internal tests cannot import sessions/all): the tables over every
// format (hostile_test.go) and Open and Discover in its tests reach them.
import _ "correx/sessions/all"
