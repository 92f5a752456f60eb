#ifndef COURIER_BENCH_CZLIB_SHIM_H
#define COURIER_BENCH_CZLIB_SHIM_H
#include <zlib.h>
#endif
