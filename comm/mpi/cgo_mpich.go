//go:build mpi && mpich

package mpi

// The MPI library's compiler and linker flags for the MPICH family (MPICH,
// and Cray MPICH, Intel MPI or MVAPICH where their pkg-config module is
// called mpich): pkg-config's mpich module (Debian: libmpich-dev), chosen
// with -tags mpi,mpich. A site whose module has another name sets
// PKG_CONFIG_PATH to a directory with an mpich.pc for it, or builds with
// CGO_CFLAGS and CGO_LDFLAGS (see the package documentation).

// #cgo pkg-config: mpich
import "C"
