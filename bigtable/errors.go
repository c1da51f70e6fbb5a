package bigtable

import "errors"

// Sentinel errors. Errors returned by this package wrap one of these where a
// caller may want to test the condition with errors.Is; the wrapping error
// names the table, family, row or limit involved.
var (
	// ErrNotFound: the table does not exist.
	ErrNotFound = errors.New("bigtable: no such table")
	// ErrExists: CreateTable or CreateColumnFamily for a name that exists.
	ErrExists = errors.New("bigtable: already exists")
	// ErrUnknownFamily: a mutation or schema call names a family the table
	// does not declare.
	ErrUnknownFamily = errors.New("bigtable: unknown family")
	// ErrInvalidName: a table or family name breaks the naming rules.
	ErrInvalidName = errors.New("bigtable: invalid name")
	// ErrInvalidRowKey: a row key is empty or longer than MaxRowKeySize.
	ErrInvalidRowKey = errors.New("bigtable: invalid row key")
	// ErrInvalidQualifier: a column qualifier is longer than MaxQualifierSize.
	ErrInvalidQualifier = errors.New("bigtable: invalid column qualifier")
	// ErrInvalidTimestamp: a timestamp or timestamp range is out of bounds.
	ErrInvalidTimestamp = errors.New("bigtable: invalid timestamp")
	// ErrValueTooLarge: a value is longer than MaxValueSize.
	ErrValueTooLarge = errors.New("bigtable: value too large")
	// ErrInvalidMutation: a mutation is empty, nested conditionally, or
	// otherwise malformed.
	ErrInvalidMutation = errors.New("bigtable: invalid mutation")
	// ErrInvalidFilter: a filter has a bad argument (a negative limit, a
	// pattern that does not compile, ...).
	ErrInvalidFilter = errors.New("bigtable: invalid filter")
	// ErrInvalidIncrement: Increment met a cell whose value is not 8 bytes.
	ErrInvalidIncrement = errors.New("bigtable: increment of a value that is not a 64-bit integer")
	// ErrTooLarge: a single row's mutation does not fit in one Badger
	// transaction (raise WithMemTableSize, or split the writes).
	ErrTooLarge = errors.New("bigtable: mutation too large for one transaction")
	// ErrInUse: another process has the store open (Badger's directory lock).
	ErrInUse = errors.New("bigtable: store in use by another process")
	// ErrNeedsRecovery: a read-only open found a store that was not closed
	// cleanly; its log must be replayed by opening it read-write once.
	ErrNeedsRecovery = errors.New("bigtable: store was not closed cleanly and needs recovery; open it read-write once")
	// ErrNotStore: the directory holds something other than a bigtable store.
	ErrNotStore = errors.New("bigtable: not a bigtable store")
	// ErrCorrupt: the directory is a store whose files are damaged.
	ErrCorrupt = errors.New("bigtable: store is damaged")
	// ErrReadOnly: a write to a store opened WithReadOnly(true).
	ErrReadOnly = errors.New("bigtable: store is read-only")
	// ErrSyncFailed: a write to a store WithSyncWrites(true) after a sync of
	// its log files failed, or a write that sync was to cover. The data a
	// failed fsync should have flushed may be lost while a retried fsync
	// succeeds (PostgreSQL's "fsyncgate", 2018), so the store acknowledges
	// no write after one: close it and open it again, which replays the
	// log from the disk. The error names the failure.
	ErrSyncFailed = errors.New("bigtable: a sync of the store's log failed; close and reopen the store")
	// ErrClosed: a call on a closed DB.
	ErrClosed = errors.New("bigtable: store is closed")
)
