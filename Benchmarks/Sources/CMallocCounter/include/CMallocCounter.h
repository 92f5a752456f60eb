#ifndef COURIER_BENCH_MALLOC_COUNTER_H
#define COURIER_BENCH_MALLOC_COUNTER_H
#include <stdint.h>

/// How many times malloc, calloc, realloc, posix_memalign and aligned_alloc
/// have been called in this process (on glibc; 0 elsewhere).
uint64_t courier_bench_allocation_count(void);

/// Bytes currently allocated from the heap (mallinfo2's uordblks; glibc only).
uint64_t courier_bench_heap_in_use(void);

/// Writes a backtrace of every allocation to `fd` from now on ("@@" before
/// each), or stops when `fd` is -1. For finding where allocations come from
/// (`COURIER_BENCH_ALLOCATION_TRACE`); glibc only.
void courier_bench_trace_allocations(int fd);

#endif
