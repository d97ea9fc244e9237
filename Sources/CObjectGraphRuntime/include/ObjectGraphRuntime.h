// Per-thread state the property wrappers of ObjectGraph read while an object initializes.
//
// Swift has no thread-local storage of its own; a C `_Thread_local` is one TLS access
// (a few instructions), where `pthread_getspecific` plus a retained Swift object cost tens
// on each of the several wrappers every managed object initializes.
#ifndef OBJECTGRAPH_RUNTIME_H
#define OBJECTGRAPH_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

typedef struct og_thread_state {
    /// The ordinal the next property wrapper initializer of the object being created takes.
    int32_t next_ordinal;
    /// Non-zero while a class is being described: wrappers record what they declare.
    int32_t recording;
    /// While a context instantiates a fetched object or a fault: the object's ID
    /// (an `ObjectID` on the caller's stack), so the initializer loads no defaults.
    const void *_Nullable materializing;
    /// While a key path of a managed object class is resolved (`#Predicate`): the
    /// `RelationshipProbe` that answers relationship reads of its probe object.
    const void *_Nullable relationship_probe;
} og_thread_state;

extern _Thread_local og_thread_state og_thread_state_current;

/// The calling thread's state.
static inline og_thread_state *_Nonnull og_thread(void) { return &og_thread_state_current; }

/// Takes the next wrapper ordinal of the object being created.
static inline int32_t og_take_ordinal(void) { return og_thread_state_current.next_ordinal++; }

/// A number identifying the calling thread among running threads (the address of its
/// state): one TLS address computation, where `pthread_self` plus `pthread_equal` are calls.
static inline uintptr_t og_thread_token(void) { return (uintptr_t)&og_thread_state_current; }

/// The token of the process's main thread, recorded when the library loads (a constructor
/// runs on the main thread). The main thread's thread-local block is allocated with the
/// process and never freed or reused, even after `dispatch_main()` ends that thread.
extern uintptr_t og_main_thread_token_value;

/// The main thread's token (see `og_thread_token`).
static inline uintptr_t og_main_thread_token(void) { return og_main_thread_token_value; }

/// Whether a class is being described on this thread.
static inline bool og_is_recording(void) { return og_thread_state_current.recording != 0; }

/// The Swift runtime's `swift_tryRetain`: adds a strong reference to a live object and
/// returns it, or returns NULL (adding none) when the object's last strong reference is
/// already gone and its deinitializer runs or is about to. The identity map uses it to hand
/// out registered objects that another thread may be releasing at that moment (see
/// docs/unsafe-code.md, section 4). `object` must point to an object whose memory is valid.
extern void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Whether a strong reference to `object` could be added (see `swift_tryRetain`).
static inline bool og_try_retain(void *_Nonnull object) { return swift_tryRetain(object) != (void *)0; }

#endif
