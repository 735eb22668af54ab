package spmv

import "testing"

func TestParseExchange(t *testing.T) {
	for _, ex := range []Exchange{ExchangeAllgather, ExchangePush} {
		got, err := ParseExchange(ex.String())
		if err != nil || got != ex {
			t.Fatalf("ParseExchange(%q) = %v, %v", ex.String(), got, err)
		}
	}
	if _, err := ParseExchange("sieve-of-nonsense"); err == nil {
		t.Fatal("bad exchange accepted")
	}
	for _, d := range []Direction{DirectionAuto, DirectionTopDown, DirectionBottomUp} {
		got, err := ParseDirection(d.String())
		if err != nil || got != d {
			t.Fatalf("ParseDirection(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := ParseDirection("sideways"); err == nil {
		t.Fatal("bad direction accepted")
	}
}
