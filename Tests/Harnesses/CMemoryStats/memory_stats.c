#include "CMemoryStats.h"
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

unsigned long long og_test_malloc_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (unsigned long long)info.uordblks + (unsigned long long)info.hblkhd;
#else
    return 0;
#endif
}
