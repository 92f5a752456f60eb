// The thread sanitizer's defaults for the test binary (see tsan_defaults.c).
const char *__tsan_default_suppressions(void);
