package fielderr

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorNamesTheField(t *testing.T) {
	err := fmt.Errorf("bench: %w", New("repeat", "%d is less than 1", 0))
	fe, ok := As(err)
	if !ok || fe.Field != "repeat" || fe.Msg != "0 is less than 1" || fe.Error() != "repeat: 0 is less than 1" {
		t.Fatalf("As(%v) = %+v, %v", err, fe, ok)
	}
	if Wrap("sizes", nil) != nil {
		t.Fatal("Wrap of nil is not nil")
	}
	if fe, ok := As(Wrap("sizes", errors.New(`"x" is not a count`))); !ok || fe.Field != "sizes" || fe.Msg != `"x" is not a count` {
		t.Fatalf("Wrap: %+v, %v", fe, ok)
	}
	if _, ok := As(errors.New("plain")); ok {
		t.Fatal("a plain error is a field error")
	}
	if Field(err) != "repeat" || Field(errors.New("plain")) != "" || Field(nil) != "" {
		t.Fatalf("Field: %q, %q, %q", Field(err), Field(errors.New("plain")), Field(nil))
	}
}
