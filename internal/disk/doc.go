// Package disk is memcore's file layer: a store directory (Dir) whose files
// are read without following links, with the signature of the version
// read, and written atomically and durably through temp files (one file,
// a new file then the one naming it, or many with one flush); JSON array
// files read leniently into raw records (ReadArray, DecodeRecords) and laid
// out again (IndentArray); the sweep of a directory before a repairing load
// (ownership, links, modes, stale temp files) and the moving of damaged
// files into corrupt/; allocated-size measurement; and the store's lock
// file (shared for readers, exclusive for writers, bounded by a timeout and
// the caller's context, flock on unix and LockFileEx on Windows) with the
// write generation other processes compare. It knows nothing of atoms:
// memcore decides what the files hold and what damage means.
package disk
