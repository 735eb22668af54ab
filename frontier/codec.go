package frontier

// Codec turns a range of a frontier bitmap into bytes and back: the
// Compress and Uncompress of Lv et al. Alg. 2 (lines 7 and 9) and Alg. 3
// (lines 10 and 14).
//
// A Codec value may keep reusable state (compressor windows, scratch
// buffers), so it is not safe for concurrent use: each rank, and each thread
// of a rank, gets its own from New. Every decoder treats its input as
// untrusted bytes from the network: corrupt or truncated input gives an
// error, never a panic, an out-of-range write or an allocation larger than
// the destination bitmap justifies.
type Codec interface {
	// Name is the codec's name ("raw", "wah", "zlib-bs", ...), as New takes
	// it.
	Name() string
	// Encode appends the encoding of src to dst and returns the extended
	// slice. The receiver knows len(src) (the sender's word count) and passes
	// a bitmap of that length to Decode.
	Encode(dst []byte, src Bitmap) ([]byte, error)
	// Decode overwrites dst with the bitmap encoded in src. It fails if src
	// does not describe exactly len(dst) words.
	Decode(dst Bitmap, src []byte) error
	// DecodeOr ORs the bitmap encoded in src into dst.
	DecodeOr(dst Bitmap, src []byte) error
}

// Chooser is implemented by codecs that pick an encoding per message (auto).
// LastChoice names the encoding the last Encode call used.
type Chooser interface {
	LastChoice() string
}
