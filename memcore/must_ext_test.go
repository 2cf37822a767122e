package memcore_test

// must returns v, panicking on err: for reads in tests whose failure is
// not what the test is about (after Close they return ErrClosed).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
