// Package results is the data model of graphrun's runs and what is made
// from it: the Graph500 statistics of a BFS run (the order statistics, mean
// and standard deviation the Graph500 reference computes over the NBFS
// searches, the TEPS statistics derived from them, and the text block byte
// for byte in the reference's layout), the run JSON of bfs and pagerank with
// its common envelope, the load and memory model a report applies to a run,
// and the formatting (C's %g, SI prefixes) the text summaries share. It is
// what the benchmark drivers need to record a run: the charts, the HTML
// report and the BENCHMARKS tables are in results/report, so that a driver
// does not depend on gonum's plot and its font and image stack.
//
// The performance metric is the one of Lv et al. §VII (defined in §VII-A and
// used for every result of §VII-B): for a search that traverses a component
// holding m input edge tuples in time seconds, TEPS = m/time. As in the
// Graph500 reference, the figure of merit over several searches is the
// harmonic mean of the per-search TEPS, computed as 1/mean(time_i/m_i).
//
// # Statistics
//
// [Compute] follows the reference's get_statistics exactly: the mean and the
// sample standard deviation (n−1 in the denominator) are taken over the
// samples in their given order; the order statistics over a sorted copy, with
// integer division in the quartile indices:
//
//	min    = x[0]
//	Q1     = (x[(n−1)/4] + x[n/4]) / 2
//	median = (x[(n−1)/2] + x[n/2]) / 2
//	Q3     = (x[n−1−(n−1)/4] + x[n−1−n/4]) / 2
//	max    = x[n−1]
//
// One deliberate difference: for a single sample the reference divides 0 by 0
// and prints "-nan" for the standard deviation; this package reports 0, and
// likewise 0 for the harmonic TEPS standard deviation. [ComputeTEPS] derives
// the TEPS statistics from s_i = time_i/nedge_i as the reference does
// (min_TEPS = 1/max(s), firstquartile_TEPS = 1/Q3(s), ...).
//
// # Text block
//
// [Graph500Run.WriteText] prints the block the reference prints after its
// searches (with kernel 3, the reference's "sssp" lines of each kind right
// after the "bfs" lines of that kind: times, TEPS, validation times), using [FormatG], a Go equivalent of C printf's %g and %.11g with
// glibc's spelling of NaN and infinities ("nan", "-nan", "inf", "-inf"). A run
// whose validation failed prints only "No results printed for invalid run.";
// a run whose validation was skipped (configured without validation) prints validate times of
// −1 for every search, as the reference does.
//
// # Run JSON
//
// [Graph500Run.WriteJSON] writes one indented JSON object; [ReadRunJSON] reads
// it back. Statistics that are not finite numbers (for example the TEPS of a
// search that took zero seconds) are written as null and read back as NaN.
// The keys, in the order they are written:
//
//	schema_version      int      2: the layout listed here ([SchemaVersion])
//	command             string   "bfs" (the Envelope every graphrun JSON starts with)
//	graphrun_version    string   version of the graphrun binary (set by the caller)
//	vcs_revision        string   VCS revision of the binary (absent if not recorded)
//	started_at          string   RFC 3339 time the run started (set by the caller)
//	command_line        array    graphrun and its arguments ([] if not from a command)
//	SCALE               int      log2 of the number of vertices
//	edgefactor          int      edges per vertex
//	NBFS                int      number of searches (length of "searches")
//	num_ranks           int      number of ranks (the reference's num_mpi_processes)
//	threads             int      worker goroutines per rank
//	seed                uint64   generator seed
//	exchange            string   frontier exchange mode (for example "allgather" or "sieve")
//	exchange_defaulted  bool     true if the exchange and codec are the transport's default
//	                             (allgather in-process, packed with codec auto over processes)
//	                             rather than chosen for the run; absent otherwise
//	direction           string   direction policy: "auto", "top-down" or "bottom-up"
//	codec               string   frontier codec of bottom-up levels (for example "wah")
//	graph_generation    float    seconds to generate the graph (kernel 0)
//	construction_time   float    seconds to build the distributed graph (kernel 1)
//	harmonic_mean_TEPS  float    the Graph500 figure of merit (= statistics.TEPS.harmonic_mean)
//	validated           bool     true only if every search was validated and passed
//	validation_skipped  bool     true if validation was not run
//	comm_bytes          int64    bytes sent by all ranks during the timed searches
//	comm_messages       int64    messages sent by all ranks during the timed searches
//	statistics          object   {"time", "nedge", "TEPS", "validate"}, each an object with
//	                             "min", "firstquartile", "median", "thirdquartile", "max",
//	                             "mean", "stddev"; "TEPS" also has "harmonic_mean" and
//	                             "harmonic_stddev". The TEPS order statistics are the
//	                             reference's (reciprocals of those of time/nedge); the TEPS
//	                             "mean" and "stddev" are the arithmetic mean and sample
//	                             standard deviation of the per-search TEPS, not Graph500
//	                             figures. "validate" holds −1s when validation was skipped.
//	searches            array    one object per search, in the order run:
//	    root            int64    global id of the search key
//	    time            float    seconds of the search
//	    nedge           int64    input edge tuples in the traversed component
//	    TEPS            float    nedge/time
//	    validate_time   float    seconds of validation, −1 if skipped
//	    validated       bool     validation ran and passed
//	    validate_bytes  int64    bytes all ranks sent validating this search (0 if skipped)
//	    validate_messages int64  messages all ranks sent validating this search
//	    levels          array    one object per BFS level:
//	        level       int      level number, 0 for the root
//	        frontier    int64    vertices in the frontier of this level
//	        bytes       int64    bytes sent by all ranks during this level
//	        messages    int64    messages sent by all ranks during this level
//	        time        float    seconds spent in this level
//	        direction   string   "top-down" or "bottom-up" (absent for level 0)
//	        raw_bytes   int64    frontier bitmap bytes published for the next
//	                             bottom-up level, before encoding (all ranks)
//	        encoded_bytes int64  the same after sieve and codec
//	        codec       string   encoding used (absent when nothing was published)
//	        traversing, reducing, communication, compression_sieve
//	                    float    the time breakdown of Lv et al. Fig. 7, in
//	                             seconds, each the slowest rank's
//	partition           string   "1d" or "2d" (absent in files that predate it)
//	grid                string   the 2D process grid, "RxC" (2d only); with
//	                             blocks_per_rank, the block grid
//	blocks_per_rank     int      2D blocks per rank when more than one (NumS §4's
//	                             over-decomposition; levels then count the
//	                             traffic between blocks)
//	placement           string   with blocks_per_rank: "lshs" or "round-robin"
//	fused               string   when LSHS's blocks ran fused (each rank's blocks searched
//	                             as one block of the renumbered graph): the block
//	                             columns of each process column, "0+7 2+5 1+6 3+4"
//	                             (process rows hold contiguous block rows)
//	unpermuted_labels   bool     true when the Kronecker labels were not permuted
//	                             (low ids are hubs): not a Graph500-conforming run
//	adjacency           string   the layout of a 1D run's rows: "plain" (4- or 8-byte
//	                             columns) or "compressed" (packed rows; absent in 2D
//	                             runs and in files that predate it)
//	adjacency_bytes_per_arc float  bytes of the rows (columns or packed rows, not
//	                             offsets) per stored adjacency entry, all ranks
//	validation_setup_time float  seconds (slowest rank) to prepare the validator once
//	                             per run (the cross directory and directory row it
//	                             does not share with the search engine)
//	validate_bytes      int64    bytes all ranks sent validating, over all searches
//	validate_messages   int64    messages all ranks sent validating, over all searches
//	rank_loads          array    one object per rank, in rank order: "edges" (stored
//	                             adjacency entries of the structure searched),
//	                             "memory_bytes" (its size), "bytes_sent" and
//	                             "messages" (sent during the timed searches),
//	                             "validate_bytes_sent" and "validate_messages"
//	                             (sent validating them), "peak_memory_bytes" (the
//	                             peak resident set size of the rank's process;
//	                             in-process ranks share one), and for 2D runs
//	                             "blocks" (blocks held), "edges_scanned"
//	                             (adjacency entries its searches read) and
//	                             "busy_seconds" (their traversal, sieve and
//	                             coding time, not waiting); with several blocks
//	                             per rank, the sent bytes and messages count
//	                             only what went to other ranks; when every rank
//	                             is a process of its own (one process per rank),
//	                             "cpu_seconds": the CPU time (user + system) its
//	                             process used in the timed searches
//	load_imbalance      object   max/mean over the ranks of each rank_loads field
//	peak_memory_bytes   int64    the largest peak resident set size of the run's
//	                             processes (VmHWM; absent where it is not known)
//	job_peak_memory_bytes int64  the sum of the peaks of the run's processes
//	processes           int      how many (in-process ranks share one)
//	construction_bytes  int64    bytes kernel 1 sent, all ranks (its two passes)
//	construction_messages int64  messages kernel 1 sent, all ranks
//	input               string   the edge list of a run on a file (bfs FILE;
//	                             absent for a generated graph), whose SCALE and
//	                             edgefactor are ⌈log2 vertices⌉ and
//	                             tuples/vertices rounded
//	vertices            int64    its vertices (distinct ids), absent otherwise
//	tuples              int64    its tuples (lines), absent otherwise
//	sssp                object   kernel 3, when the run had it (absent otherwise):
//	                             "delta" (the bucket width Δ), "weight_construction_time"
//	                             (seconds, slowest rank, to weigh the edges and order
//	                             the engine's rows), "harmonic_mean_TEPS", "validated",
//	                             "comm_bytes", "comm_messages", "statistics" (as above),
//	                             and "searches", one per BFS key in the same order, with
//	                             the search keys above but "levels", and "buckets",
//	                             "phases" and "requests" (relaxation requests, all ranks)
//
// The commands write such files through internal/output, so that a reader
// never sees a partial file. Every graphrun JSON document starts with the
// keys of [Envelope]; the PageRank run JSON is [PageRankRun].
//
// # Schema version
//
// Both run records carry "schema_version", an integer, 2 for the layouts
// above and [PageRankRun]'s ([SchemaVersion]). Records written before the
// key existed are version 1: they still read (ReadRunJSON and
// ReadPageRankJSON ignore keys they do not know), but the keys that only
// version 1 had are no longer read: a BFS run's "validation_csr_time" (the
// seconds a 2D run's validator once spent building a 1D CSR) and a
// PageRank run's "version" (graphrun's version before the envelope's
// "graphrun_version"). Adding a key keeps the version; removing one, or
// changing what a value means, makes the next. A record of a later version
// is refused.
//
// Sources, cited in full in REFERENCES.md at the repository root:
//
//   - Huiwei Lv, Guangming Tan, Mingyu Chen and Ninghui Sun, "Compression
//     and Sieve: Reducing Communication in Parallel Breadth First Search on
//     Distributed Memory Systems", arXiv preprint (Institute of Computing
//     Technology, CAS), 2012.
//   - Huasha Zhao and John Canny, "Kylix: A Sparse Allreduce for Commodity
//     Clusters", 43rd International Conference on Parallel Processing
//     (ICPP), IEEE, 2014.
//   - Melih Elibol, Vinamra Benara, Samyu Yagati, Lianmin Zheng, Alvin
//     Cheung, Michael I. Jordan and Ion Stoica, "NumS: Scalable Array
//     Programming for the Cloud", arXiv preprint, 2022.
//   - "Graph500 Benchmark Specification", version 3.0, and its reference
//     implementation's statistics (get_statistics).
package results
