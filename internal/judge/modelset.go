package judge

import (
	"encoding/binary"
	"errors"
)

// The type models are stored in one file: for each, its length (uvarint)
// and its bytes (textclf's format, which checks itself).

// JoinModels concatenates serialised models into one file.
func JoinModels(ms [][]byte) []byte {
	var out []byte
	for _, m := range ms {
		out = binary.AppendUvarint(out, uint64(len(m)))
		out = append(out, m...)
	}
	return out
}

// splitModels undoes JoinModels.
func splitModels(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errors.New("judge: damaged type model file")
		}
		out = append(out, b[k:k+int(n)])
		b = b[k+int(n):]
	}
	return out, nil
}
