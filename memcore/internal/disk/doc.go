// Package disk is memcore's file layer: atomic and durable writes through
// temp files (one file, or many with one flush), the store's lock file
// (shared for readers, exclusive for writers, bounded by a timeout and the
// caller's context, flock on unix and LockFileEx on Windows) with the write
// generation other processes compare, cheap file signatures for change
// detection, and allocated-size measurement. It knows nothing of atoms:
// memcore decides what the files hold.
package disk
