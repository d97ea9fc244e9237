#include "ObjectGraphRuntime.h"

_Thread_local og_thread_state og_thread_state_current = { 0, 0, 0 };
