#ifndef C_MEMORY_STATS_H
#define C_MEMORY_STATS_H

/// Bytes the C allocator has handed out and not had back (glibc's `mallinfo2()`: small blocks and mapped ones), or 0
/// where the allocator does not say. Tests compare it before and after an operation to see
/// what the operation keeps allocated.
unsigned long long og_test_malloc_in_use(void);

#endif
