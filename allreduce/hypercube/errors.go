package hypercube

import "github.com/graphrun/graphrun/allreduce/internal/agree"

// ErrInvalid is wrapped by every error about invalid arguments: an unknown
// algorithm, a topology that does not fit the rank count, a nil reduction,
// or ranks that disagree on the algorithm, element type, pieces, topology
// or vector length. It is the same error as allreduce.ErrInvalid.
var ErrInvalid = agree.ErrInvalid
