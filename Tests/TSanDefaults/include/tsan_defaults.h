// The thread sanitizer's defaults for the test binary (see tsan_defaults.c).
const char *__tsan_default_suppressions(void);

// 1 in a build with the thread sanitizer, 0 otherwise.
int courier_thread_sanitizer_is_on(void);

// The bytes malloc holds for the program now (the sanitizer's allocator or
// glibc's mallinfo2), or -1.
long long courier_heap_bytes_in_use(void);
