#ifndef COURIER_BENCH_MALLOC_COUNTER_H
#define COURIER_BENCH_MALLOC_COUNTER_H
#include <stdint.h>

/// How many times malloc, calloc, realloc, posix_memalign and aligned_alloc
/// have been called in this process (on glibc; 0 elsewhere).
uint64_t courier_bench_allocation_count(void);

/// Bytes currently allocated from the heap (mallinfo2's uordblks; glibc only).
uint64_t courier_bench_heap_in_use(void);

#endif
