package disk

// DirState identifies the entries of a directory as they are: its inode
// and its modification and change times. Creating, removing or renaming a
// file in the directory changes its modification time, and a chmod or
// chown of the directory its change time; a chmod of a file inside
// changes neither.
type DirState struct {
	Ino          uint64
	Mtime, Ctime int64 // nanoseconds; Ctime 0 where the platform has none
}
