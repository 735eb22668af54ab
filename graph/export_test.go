package graph

// Test helpers of labels_test.go for the external tests (package graph_test)
// that read real graphs through package edgelist.
var (
	DistinctIDs  = distinctIDs
	RunRelabel   = runRelabel
	CheckRelabel = checkRelabel
)
