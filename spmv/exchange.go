package spmv

import (
	"time"

	"github.com/graphrun/graphrun/internal/enum"
)

// Exchange selects how the vertices discovered in a level reach other ranks.
type Exchange int

// Exchange modes.
const (
	// ExchangeAllgather is Lv et al.'s baseline BIT (Alg. 1): bottom-up scan,
	// bitmap frontier exchanged by Allgatherv.
	ExchangeAllgather Exchange = iota
	// ExchangePush is top-down expansion with (vertex, parent) pairs sent to
	// owners by Alltoallv, as the Graph500 reference code does.
	ExchangePush
	// ExchangeSieve is Lv et al.'s Alg. 3: before a bottom-up step each rank
	// sieves its new frontier with the cross directory of every peer and
	// sends each peer only what it can use, by Alltoallv.
	ExchangeSieve
	// ExchangePacked is the sieve without the positions both ends know are
	// clear (sieve.Packer): of the sieved bitmap only the bits at directory
	// positions not yet sent in this search travel, packed together, before
	// the codec. The receiver rebuilds the sieved bitmap exactly.
	ExchangePacked
)

// exchangeNames are the names ParseExchange accepts.
var exchangeNames = [...]string{ExchangeAllgather: "allgather", ExchangePush: "push", ExchangeSieve: "sieve", ExchangePacked: "packed"}

func (e Exchange) String() string { return enum.Name(exchangeNames[:], "exchange", e) }

// ParseExchange turns an exchange's name (its String) into the Exchange.
func ParseExchange(s string) (Exchange, error) {
	return enum.Parse[Exchange](exchangeNames[:], "exchange", "allgather, sieve, packed or push", s)
}

// Direction is the traversal direction of a level (Beamer et al.; Lv et
// al. §IX names it as the step to combine with their exchange).
type Direction int

// Directions.
const (
	// DirectionAuto chooses per level: top-down while the frontier's edges are
	// few compared with the unexplored ones, bottom-up while the frontier is
	// large.
	DirectionAuto Direction = iota
	// DirectionTopDown expands the frontier's rows and pushes (vertex, parent)
	// records to the owners at every level.
	DirectionTopDown
	// DirectionBottomUp scans the unvisited vertices for a frontier neighbour
	// at every level: Lv et al.'s Algorithm 1 as written.
	DirectionBottomUp
)

var directionNames = [...]string{DirectionAuto: "auto", DirectionTopDown: "top-down", DirectionBottomUp: "bottom-up"}

func (d Direction) String() string { return enum.Name(directionNames[:], "direction", d) }

// ParseDirection turns a direction's name (its String) into the Direction.
func ParseDirection(s string) (Direction, error) {
	return enum.Parse[Direction](directionNames[:], "direction", "auto, top-down or bottom-up", s)
}

// Default switching parameters of DirectionAuto, as in Beamer et al. and the
// GAP benchmark suite: go bottom-up once the frontier's edges exceed the
// unexplored edges / Alpha; come back top-down once the frontier shrinks below
// N / Beta vertices.
const (
	DefaultAlpha = 15
	DefaultBeta  = 18
)

// LevelStats describes one level-synchronous step on this rank.
//
// The four times are Lv et al.'s breakdown (Fig. 7 and 10): traversing,
// reducing, communication, and compression & sieve.
type LevelStats struct {
	Level     int       // BFS level of the vertices discovered in this step
	Direction Direction // how this step traversed (top-down or bottom-up)
	Frontier  int64     // vertices discovered in this step, over all ranks
	BytesSent int64     // bytes this rank sent to other ranks in this step
	Messages  int64     // messages this rank sent in this step
	// Scanned is the adjacency entries this rank's traversal read in this
	// step: edges checked bottom-up, edges expanded top-down (the work NumS §4's
	// load simulation places). Counted by the 2D engine; 0 in 1D.
	Scanned int64
	// RawBytes and EncodedBytes are the frontier bitmap bytes this rank
	// published for the next bottom-up step, before and after the codec (and
	// after the sieve, for ExchangeSieve). Zero when none was published.
	RawBytes, EncodedBytes int64
	// Codec is the encoding used for the published frontier (for "auto", the
	// choice made for most of this step's messages).
	Codec       string
	Traverse    time.Duration // local traversal (the SpMV): scan, expand, apply
	Reduce      time.Duration // allreduce of the counts
	Communicate time.Duration // the exchanges themselves
	Compress    time.Duration // sieving, encoding and decoding
}
