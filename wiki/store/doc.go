// Package store is a transactional file store over one directory, opened
// as an [os.Root] so no name, symlink or prefix trick reaches outside it.
// It knows nothing of what the files mean: its owner installs a [Policy]
// (which paths are valid, which changes are allowed, what is derived) and
// the store enforces it on every write.
//
// Writes are transactions ([Store.Update], [Tx]): they take the project
// lock (an in-process semaphore plus a cross-process file lock on
// [LockFile]), check the caller's base sha256, snapshot each replaced
// version under [SnapshotDir], write each file atomically (temp file beside
// the target, fsync, rename, fsync the folder; every step through the fault
// seam [WithFaults]), journal a multi-file commit ([JournalFile]) so a crash
// is rolled forward at the next [Open], and record the sha256 of every path
// before and after in the call's audit line ([Call], [AuditDir]). Derived
// state registered with [Store.AddDerived] is told of every commit and
// marked stale when it cannot follow. A store on a read-only file system
// opens read-only ([Store.ReadOnly]) and refuses writes with
// [CodeUnavailable]. Every error it returns is an [Error] with a [Code].
//
// The store's own state lives under [StateDir]; a transaction never writes
// it ([Store.WriteState] does).
package store
