//go:build !unix

package memstat

import "errors"

func rusageMaxRSS() (int64, error) {
	return 0, errors.New("memstat: peak memory is not known on this system")
}
