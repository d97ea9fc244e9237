#include <sqlite3.h>
#include <malloc.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type bench_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// Bytes currently allocated by malloc (glibc), for bytes-per-object measurements.
static inline unsigned long long bench_malloc_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (unsigned long long)info.uordblks + (unsigned long long)info.hblkhd;
}
