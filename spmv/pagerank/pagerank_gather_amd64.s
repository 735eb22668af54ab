//go:build amd64 && !purego

// The long-column sums of PageRank's local SpMV (Kylix §VII;
// REFERENCES.md) with AVX2 gathers, plain and weighted: four sources'
// values per VGATHERQPD, into four lanes that are exactly the Go loops'
// four running sums (longColumnSumGo in pagerank_runs.go,
// weightedLongColumnSumGo in weights.go), so the results are
// bit-identical to theirs.

#include "textflag.h"

// func longColumnSumAVX2(col []uint32, x unsafe.Pointer) float64
TEXT ·longColumnSumAVX2(SB), NOSPLIT, $0-40
	MOVQ col_base+0(FP), SI
	MOVQ col_len+8(FP), CX
	MOVQ x+24(FP), DI
	VXORPD Y0, Y0, Y0 // lane j sums edges k ≡ j (mod 4) below len &^ 3

	// Eight edges per round: two gathers, added to the lanes in edge order.
	// The sources are zero-extended to 64 bits, so every uint32 slot
	// indexes x (VGATHERDPD would sign-extend them).
	MOVQ CX, BX
	SHRQ $3, BX
	JZ   four

eight:
	PREFETCHNTA 512(SI) // the sources ahead, kept out of L2, where x's hot part is
	VPMOVZXDQ  (SI), Y1
	VPMOVZXDQ  16(SI), Y5
	VPCMPEQD   Y2, Y2, Y2 // the gathers' masks: every lane, cleared as it completes
	VPCMPEQD   Y6, Y6, Y6
	VXORPD     Y3, Y3, Y3 // no dependence on the last round's destination
	VXORPD     Y4, Y4, Y4
	VGATHERQPD Y2, (DI)(Y1*8), Y3
	VGATHERQPD Y6, (DI)(Y5*8), Y4
	VADDPD     Y3, Y0, Y0
	VADDPD     Y4, Y0, Y0
	ADDQ       $32, SI
	DECQ       BX
	JNZ        eight

four:
	TESTQ      $4, CX
	JZ         tail
	VPMOVZXDQ  (SI), Y1
	VPCMPEQD   Y2, Y2, Y2
	VXORPD     Y3, Y3, Y3
	VGATHERQPD Y2, (DI)(Y1*8), Y3
	VADDPD     Y3, Y0, Y0
	ADDQ       $16, SI

tail:
	// The last len mod 4 edges go to lane 0, one by one; lanes 2 and 3 are
	// set aside first, as a scalar VEX add clears the upper half.
	VEXTRACTF128 $1, Y0, X7
	ANDQ         $3, CX
	JZ           reduce

tailloop:
	MOVL   (SI), R8
	VADDSD (DI)(R8*8), X0, X0
	ADDQ   $4, SI
	DECQ   CX
	JNZ    tailloop

reduce:
	// (s0+s1) + (s2+s3), as longColumnSumGo adds them.
	VHADDPD   X7, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VZEROUPPER
	MOVSD     X0, ret+32(FP)
	RET

// func weightedLongColumnSumAVX2(col []uint32, ws unsafe.Pointer, x unsafe.Pointer) float64
//
// weightedLongColumnSumGo's sum (weights.go) with gathers: each lane adds
// w·x, the product rounded first (VMULPD, then VADDPD), as the Go loop's
// explicit conversion makes it round, so the result is bit-identical.
TEXT ·weightedLongColumnSumAVX2(SB), NOSPLIT, $0-48
	MOVQ col_base+0(FP), SI
	MOVQ col_len+8(FP), CX
	MOVQ ws+24(FP), DX
	MOVQ x+32(FP), DI
	VXORPD Y0, Y0, Y0 // lane j sums edges k ≡ j (mod 4) below len &^ 3

	MOVQ CX, BX
	SHRQ $3, BX
	JZ   wfour

weight:
	PREFETCHNTA 512(SI)
	PREFETCHNTA 512(DX)
	VPMOVZXDQ  (SI), Y1
	VPMOVZXDQ  16(SI), Y5
	VPCMPEQD   Y2, Y2, Y2
	VPCMPEQD   Y6, Y6, Y6
	VXORPD     Y3, Y3, Y3
	VXORPD     Y4, Y4, Y4
	VGATHERQPD Y2, (DI)(Y1*8), Y3
	VGATHERQPD Y6, (DI)(Y5*8), Y4
	VCVTPS2PD  (DX), Y8
	VCVTPS2PD  16(DX), Y9
	VMULPD     Y8, Y3, Y3
	VMULPD     Y9, Y4, Y4
	VADDPD     Y3, Y0, Y0
	VADDPD     Y4, Y0, Y0
	ADDQ       $32, SI
	ADDQ       $32, DX
	DECQ       BX
	JNZ        weight

wfour:
	TESTQ      $4, CX
	JZ         wtail
	VPMOVZXDQ  (SI), Y1
	VPCMPEQD   Y2, Y2, Y2
	VXORPD     Y3, Y3, Y3
	VGATHERQPD Y2, (DI)(Y1*8), Y3
	VCVTPS2PD  (DX), Y8
	VMULPD     Y8, Y3, Y3
	VADDPD     Y3, Y0, Y0
	ADDQ       $16, SI
	ADDQ       $16, DX

wtail:
	// The last len mod 4 edges go to lane 0 (lanes 2 and 3 set aside first:
	// a scalar VEX operation clears the upper half).
	VEXTRACTF128 $1, Y0, X7
	ANDQ         $3, CX
	JZ           wreduce

wtailloop:
	MOVL      (SI), R8
	VCVTSS2SD (DX), X8, X8
	VMULSD    (DI)(R8*8), X8, X8
	VADDSD    X8, X0, X0
	ADDQ      $4, SI
	ADDQ      $4, DX
	DECQ      CX
	JNZ       wtailloop

wreduce:
	VHADDPD   X7, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VZEROUPPER
	MOVSD     X0, ret+40(FP)
	RET
