#include "CFaultInjection.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

// A file of the wrapping VFS: the real file follows it in the same allocation.
typedef struct fi_file {
    sqlite3_file base;
    sqlite3_file *real;
    bool tracked;
} fi_file;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs wrapping_vfs;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t fragment_lock = PTHREAD_MUTEX_INITIALIZER;
static char fragment[1024];

static _Atomic long counts[4];
static _Atomic long fail_at[4];          // 0: disarmed
static _Atomic bool fail_persistent[4];
static _Atomic long failures;

static const int failure_codes[4] = { SQLITE_IOERR_READ, SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, SQLITE_CANTOPEN };

/// Counts one operation on a tracked file; returns the error to report, or SQLITE_OK.
static int count(fi_operation operation) {
    long n = atomic_fetch_add(&counts[operation], 1) + 1;
    long at = atomic_load(&fail_at[operation]);
    if (at > 0 && (n == at || (n > at && atomic_load(&fail_persistent[operation])))) {
        atomic_fetch_add(&failures, 1);
        return failure_codes[operation];
    }
    return SQLITE_OK;
}

static sqlite3_file *real(sqlite3_file *file) { return ((fi_file *)file)->real; }

static int fi_close(sqlite3_file *file) {
    sqlite3_file *r = real(file);
    return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}

static int fi_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    if (((fi_file *)file)->tracked) {
        int code = count(FI_READ);
        if (code != SQLITE_OK) return code;
    }
    return real(file)->pMethods->xRead(real(file), buffer, amount, offset);
}

static int fi_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    if (((fi_file *)file)->tracked) {
        int code = count(FI_WRITE);
        if (code != SQLITE_OK) return code;
    }
    return real(file)->pMethods->xWrite(real(file), buffer, amount, offset);
}

static int fi_sync(sqlite3_file *file, int flags) {
    if (((fi_file *)file)->tracked) {
        int code = count(FI_SYNC);
        if (code != SQLITE_OK) return code;
    }
    return real(file)->pMethods->xSync(real(file), flags);
}

static int fi_truncate(sqlite3_file *file, sqlite3_int64 size) { return real(file)->pMethods->xTruncate(real(file), size); }
static int fi_file_size(sqlite3_file *file, sqlite3_int64 *size) { return real(file)->pMethods->xFileSize(real(file), size); }
static int fi_lock(sqlite3_file *file, int lock) { return real(file)->pMethods->xLock(real(file), lock); }
static int fi_unlock(sqlite3_file *file, int lock) { return real(file)->pMethods->xUnlock(real(file), lock); }
static int fi_check_reserved_lock(sqlite3_file *file, int *out) { return real(file)->pMethods->xCheckReservedLock(real(file), out); }
// 0x4D520001: ObjectGraph's StoreInUseLock asks a wrapping VFS for the file it wraps.
static int fi_file_control(sqlite3_file *file, int op, void *arg) {
    if (op == 0x4D520001) {
        *(sqlite3_file **)arg = real(file);
        return SQLITE_OK;
    }
    return real(file)->pMethods->xFileControl(real(file), op, arg);
}
static int fi_sector_size(sqlite3_file *file) { return real(file)->pMethods->xSectorSize(real(file)); }
static int fi_device_characteristics(sqlite3_file *file) { return real(file)->pMethods->xDeviceCharacteristics(real(file)); }
static int fi_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    return real(file)->pMethods->xShmMap(real(file), page, size, extend, out);
}
static int fi_shm_lock(sqlite3_file *file, int offset, int n, int flags) { return real(file)->pMethods->xShmLock(real(file), offset, n, flags); }
static void fi_shm_barrier(sqlite3_file *file) { real(file)->pMethods->xShmBarrier(real(file)); }
static int fi_shm_unmap(sqlite3_file *file, int delete) { return real(file)->pMethods->xShmUnmap(real(file), delete); }
static int fi_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    return real(file)->pMethods->xFetch(real(file), offset, amount, out);
}
static int fi_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) { return real(file)->pMethods->xUnfetch(real(file), offset, pointer); }

#define FI_METHODS(version) { version, fi_close, fi_read, fi_write, fi_truncate, fi_sync, fi_file_size, fi_lock, \
    fi_unlock, fi_check_reserved_lock, fi_file_control, fi_sector_size, fi_device_characteristics, \
    fi_shm_map, fi_shm_lock, fi_shm_barrier, fi_shm_unmap, fi_fetch, fi_unfetch }
// One table per io_methods version, so SQLite never calls a method the real file lacks.
static const sqlite3_io_methods methods[3] = { FI_METHODS(1), FI_METHODS(2), FI_METHODS(3) };

static int fi_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    fi_file *wrapper = (fi_file *)file;
    wrapper->base.pMethods = NULL;
    wrapper->real = (sqlite3_file *)(wrapper + 1);
    pthread_mutex_lock(&fragment_lock);
    wrapper->tracked = name != NULL && fragment[0] != 0 && strstr(name, fragment) != NULL;
    pthread_mutex_unlock(&fragment_lock);
    if (wrapper->tracked) {
        int code = count(FI_OPEN);
        if (code != SQLITE_OK) return code;
    }
    int code = real_vfs->xOpen(real_vfs, name, wrapper->real, flags, out_flags);
    if (wrapper->real->pMethods) {
        int version = wrapper->real->pMethods->iVersion;
        wrapper->base.pMethods = &methods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
    }
    return code;
}

static void install(void) {
    real_vfs = sqlite3_vfs_find(NULL);
    // Everything but opening is the real VFS's own (its methods read only fields copied here).
    wrapping_vfs = *real_vfs;
    wrapping_vfs.pNext = NULL;
    wrapping_vfs.zName = "fault-injection";
    wrapping_vfs.szOsFile = (int)sizeof(fi_file) + real_vfs->szOsFile;
    wrapping_vfs.xOpen = fi_open;
    sqlite3_vfs_register(&wrapping_vfs, 1);
}

void fi_install(void) { pthread_once(&install_once, install); }

void fi_reset_counts(void) {
    for (int i = 0; i < 4; i++) atomic_store(&counts[i], 0);
}

void fi_disarm(void) {
    for (int i = 0; i < 4; i++) atomic_store(&fail_at[i], 0);
}

void fi_track(const char *new_fragment) {
    fi_disarm();
    pthread_mutex_lock(&fragment_lock);
    strncpy(fragment, new_fragment, sizeof fragment - 1);
    fragment[sizeof fragment - 1] = 0;
    pthread_mutex_unlock(&fragment_lock);
    fi_reset_counts();
}

void fi_arm(fi_operation operation, long nth, bool persistent) {
    fi_disarm();
    fi_reset_counts();
    atomic_store(&failures, 0);
    atomic_store(&fail_persistent[operation], persistent);
    atomic_store(&fail_at[operation], nth);
}

long fi_count(fi_operation operation) { return atomic_load(&counts[operation]); }

long fi_failures(void) { return atomic_load(&failures); }

int fi_failure_code(fi_operation operation) { return failure_codes[operation]; }
