//go:build mpi && !mpich

package mpi

// The MPI library's compiler and linker flags for Open MPI (the default):
// pkg-config's ompi module (Debian: libopenmpi-dev). Build with -tags
// mpi,mpich for the MPICH family instead (cgo_mpich.go).

// #cgo pkg-config: ompi
import "C"
