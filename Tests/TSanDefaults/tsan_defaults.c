// Defaults the thread sanitizer reads from the test binary itself, so that
// `swift test --sanitize=thread` needs no environment variable.
//
// One suppression, for the loopback test servers only (frames in the
// CourierLoopback module): the sanitizer reported a race between the event
// loop writing a chunk's fresh storage and the server's task reading that
// chunk after NIOAsyncChannel handed it over. Copying every chunk on the loop
// (CopiesInboundBuffers) left the report in place with a buffer no one else
// ever held, so the pair is the hand-off itself, which goes through the Swift
// runtime's continuations the sanitizer does not see on Linux. No Courier
// product code runs in those frames.
const char *__tsan_default_suppressions(void) {
    return "race:CourierLoopback\n";
}

// Whether this binary was built with the thread sanitizer, whose shadow
// memory counts in the resident memory that the bounded-memory tests read.
int courier_thread_sanitizer_is_on(void) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
    return 1;
#endif
#endif
    return 0;
}

// The bytes malloc has handed out and not had back, for the soak tests: the
// sanitizer's own allocator's count under the thread sanitizer (whose malloc
// glibc does not see), glibc's mallinfo2 in every arena otherwise; -1 where
// neither is there.
#if defined(__linux__)
#include <malloc.h>
#endif
#include <stddef.h>
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
size_t __sanitizer_get_current_allocated_bytes(void);
#define COURIER_SANITIZER_HEAP 1
#endif
#endif
long long courier_heap_bytes_in_use(void) {
#if defined(COURIER_SANITIZER_HEAP)
    return (long long)__sanitizer_get_current_allocated_bytes();
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}
