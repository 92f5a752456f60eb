// Counts allocations by interposing the allocator entry points in the
// executable: the dynamic linker resolves malloc & co. to these definitions
// first, and they forward to glibc's own __libc_* implementations. Only on
// glibc; elsewhere the counter stays 0.
#include "CMallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdatomic.h>
#include <execinfo.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic uint64_t allocations;

static _Atomic int trace_fd = -1;
static __thread int tracing_now;
/// One thread writes a trace at a time, so lines of different threads'
/// traces never interleave (tracing is slow anyway).
static atomic_flag trace_lock = ATOMIC_FLAG_INIT;

static inline void count_one(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    int fd = atomic_load_explicit(&trace_fd, memory_order_relaxed);
    if (fd >= 0 && !tracing_now) {
        // backtrace() may allocate on its first call; the flag keeps that
        // allocation from tracing itself.
        tracing_now = 1;
        void *frames[24];
        int depth = backtrace(frames, 24);
        while (atomic_flag_test_and_set_explicit(&trace_lock, memory_order_acquire)) {}
        write(fd, "@@\n", 3);
        backtrace_symbols_fd(frames + 1, depth - 1, fd);
        atomic_flag_clear_explicit(&trace_lock, memory_order_release);
        tracing_now = 0;
    }
}

void courier_bench_trace_allocations(int fd) {
    atomic_store_explicit(&trace_fd, fd, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

uint64_t courier_bench_allocation_count(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

uint64_t courier_bench_heap_in_use(void) {
    return (uint64_t)mallinfo2().uordblks;
}
#else
void courier_bench_trace_allocations(int fd) { (void)fd; }
uint64_t courier_bench_allocation_count(void) { return 0; }
uint64_t courier_bench_heap_in_use(void) { return 0; }
#endif
