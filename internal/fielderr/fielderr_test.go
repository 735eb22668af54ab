package fielderr

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorNamesTheField(t *testing.T) {
	err := fmt.Errorf("bench: %w", New("Repeat", "%d is less than 1", 0))
	fe, ok := As(err)
	if !ok || fe.Field != "Repeat" || fe.Msg != "0 is less than 1" || fe.Error() != "Repeat: 0 is less than 1" {
		t.Fatalf("As(%v) = %+v, %v", err, fe, ok)
	}
	if Wrap("Sizes", nil) != nil {
		t.Fatal("Wrap of nil is not nil")
	}
	if fe, ok := As(Wrap("Sizes", errors.New(`"x" is not a count`))); !ok || fe.Field != "Sizes" || fe.Msg != `"x" is not a count` {
		t.Fatalf("Wrap: %+v, %v", fe, ok)
	}
	if _, ok := As(errors.New("plain")); ok {
		t.Fatal("a plain error is a field error")
	}
	if Field(err) != "Repeat" || Field(errors.New("plain")) != "" || Field(nil) != "" {
		t.Fatalf("Field: %q, %q, %q", Field(err), Field(errors.New("plain")), Field(nil))
	}
}
