package results

import (
	"bytes"
	"strings"
	"testing"
)

// TestJSONExchangeDefaulted: "exchange_defaulted" is written when the
// exchange was the transport's default, left out when a flag chose it, and
// read back either way.
func TestJSONExchangeDefaulted(t *testing.T) {
	for _, defaulted := range []bool{false, true} {
		r := syntheticRun()
		r.ExchangeDefaulted = defaulted
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "\n  \"exchange_defaulted\": true,\n"); got != defaulted {
			t.Errorf("defaulted %v: the JSON says exchange_defaulted: %v", defaulted, got)
		}
		back, err := ReadRunJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		if back.ExchangeDefaulted != defaulted {
			t.Errorf("defaulted %v read back as %v", defaulted, back.ExchangeDefaulted)
		}
	}
}
