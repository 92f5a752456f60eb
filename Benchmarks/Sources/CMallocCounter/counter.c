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

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic uint64_t allocations;

static inline void count_one(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
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
uint64_t courier_bench_allocation_count(void) { return 0; }
uint64_t courier_bench_heap_in_use(void) { return 0; }
#endif
