/* The lane readers of both x86 kernels from one template: a path's header (_columns.h,
 * _strs.h, _fixed.h) defines SASHITE_READERS as its template's name here ("columns.h",
 * "strs.h", "fixed.h") and includes this file, which includes that template once with
 * AVX2's steps and once with AVX-512's (under whose target the same AVX2 code gets 32
 * vector registers).  No include guard: it is meant to be included again. */
#define SASHITE_NAMED(f) f##_avx2
#define SASHITE_TARGET SASHITE_AVX2_TARGET
#define SASHITE_LANES_STATE SASHITE_LANES_STATE_AVX2
#define SASHITE_INDEX8 sashite_index8_avx2
#define SASHITE_MARK8 sashite_mark8_avx2
#define SASHITE_MARK8_ROOM sashite_mark8_avx2
#define SASHITE_MARK8_KEYS sashite_mark8_keys_avx2
#define SASHITE_LANES_WRITE sashite_write_scalar
#include SASHITE_READERS
#include "undef.h"
#define SASHITE_NAMED(f) f##_avx512
#define SASHITE_TARGET SASHITE_AVX512_TARGET
#define SASHITE_LANES_STATE SASHITE_LANES_STATE_AVX512
#define SASHITE_INDEX8 sashite_index8_avx512
#define SASHITE_MARK8 sashite_mark8_avx512
#define SASHITE_MARK8_ROOM sashite_mark8_room_avx512
#define SASHITE_MARK8_KEYS sashite_mark8_keys_avx512
#define SASHITE_LANES_WRITE sashite_write_avx512
#include SASHITE_READERS
#include "undef.h"
#undef SASHITE_READERS
