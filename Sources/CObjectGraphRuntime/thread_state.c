#define _GNU_SOURCE
#include "ObjectGraphRuntime.h"
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#elif defined(__APPLE__)
#include <pthread.h>
#endif

_Thread_local og_thread_state og_thread_state_current = { 0, 0, 0 };

uintptr_t og_main_thread_token_value = 0;

// Recorded only when the constructor really runs on the main thread (on Linux its thread ID
// equals the process ID); otherwise 0, and main-queue contexts take their slower check.
__attribute__((constructor))
static void og_record_main_thread(void) {
#if defined(__linux__)
    if ((pid_t)syscall(SYS_gettid) != getpid()) return;
#elif defined(__APPLE__)
    if (!pthread_main_np()) return;
#endif
    og_main_thread_token_value = og_thread_token();
}
