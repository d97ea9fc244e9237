// A test-only SQLite VFS that wraps the default one and makes a chosen file operation fail.
//
// `fi_install` registers it as the default VFS, so every connection opened afterwards (the
// library's writer and readers included) goes through it; it delegates everything to the
// previous default. Only files whose path contains the tracked fragment (a test's own
// temporary directory) are counted and can be made to fail.
#ifndef CFAULTINJECTION_H
#define CFAULTINJECTION_H

#include <stdbool.h>

typedef enum fi_operation {
    FI_READ = 0,   // xRead fails with SQLITE_IOERR_READ
    FI_WRITE = 1,  // xWrite fails with SQLITE_IOERR_WRITE
    FI_SYNC = 2,   // xSync fails with SQLITE_IOERR_FSYNC
    FI_OPEN = 3,   // xOpen fails with SQLITE_CANTOPEN
} fi_operation;

/// Registers the wrapping VFS as the default one (once; later calls do nothing).
void fi_install(void);

/// Counts and fails operations only on files whose path contains `fragment` (opened after
/// this call; an empty fragment tracks nothing); clears the counters and disarms.
void fi_track(const char *_Nonnull fragment);

/// Makes the `nth` (1-based, counted from now) operation of `operation` on tracked files
/// fail; with `persistent`, every later one fails too. Clears the counters.
void fi_arm(fi_operation operation, long nth, bool persistent);

/// No operation fails any more (the counters keep counting).
void fi_disarm(void);

/// Operations of `operation` on tracked files since the last `fi_track`, `fi_arm` or
/// `fi_reset_counts`.
long fi_count(fi_operation operation);

/// How many operations failed on purpose since the last `fi_arm`.
long fi_failures(void);

/// The extended result code a failed `operation` reports (Swift cannot import SQLite's
/// extended-code macros).
int fi_failure_code(fi_operation operation);

/// Sets every counter to zero.
void fi_reset_counts(void);

#endif
