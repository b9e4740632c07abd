/* The Arrow column readers of an x86 kernel (AVX2 or AVX-512), written once: _columns.h
 * includes this file once per kernel, after defining
 * - SASHITE_NAMED(f): f with the kernel's suffix (sashite_offsets32 becomes
 *   sashite_offsets32_avx2);
 * - SASHITE_TARGET: the functions' target attribute;
 * - SASHITE_LANES_STATE, SASHITE_LANES_WRITE: the lane loop's (generic/lanes.h);
 * - SASHITE_INDEX8(n, w, epin, keys, to): the rule on eight lanes, indexes to to;
 * and undefines them after (generic/undef.h).  Entries i to count - 1 (o and v: the
 * array's offset applied; end: the last offset; bits: the validity bitmap or NULL,
 * bit: the array's offset in it), records to out + 5 * i; each returns the first entry
 * it did not write.  The group loaders are _columns.h's. */

/* utf8: int32 offsets, which end below 2**31, so end - 3 fits; below 0, no 4 bytes to
 * read. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_offsets32)(
    const unsigned char *data, const int32_t *o, Py_ssize_t i, Py_ssize_t count, int64_t end,
    const uint8_t *bits, int64_t bit, unsigned char *out, const uint64_t *records, int epin)
{
    const __m256i limit = _mm256_set1_epi32((int32_t)(end - 3));
    if (end < 3)
        return i;
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_valid8(bits, bit + (I))                                                       \
     && SASHITE_NAMED(sashite_group32)(data, o + (I), limit, &n, &w)                       \
     && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* large_utf8: int64 offsets. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_offsets64)(
    const unsigned char *data, const int64_t *o, Py_ssize_t i, Py_ssize_t count, int64_t end,
    const uint8_t *bits, int64_t bit, unsigned char *out, const uint64_t *records, int epin)
{
    const __m256i limit = _mm256_set1_epi64x(end - 3);
    if (end < 3)
        return i;
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_valid8(bits, bit + (I))                                                       \
     && SASHITE_NAMED(sashite_group64)(data, o + (I), limit, &n, &w)                       \
     && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* string_view: 16-byte views. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_views)(
    const unsigned char *v, Py_ssize_t i, Py_ssize_t count, const uint8_t *bits, int64_t bit,
    unsigned char *out, const uint64_t *records, int epin)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_valid8(bits, bit + (I)) && sashite_group_views_avx2(v + 16 * (I), &n, &w)     \
     && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* The same three under errors="mark" (_columns.h: sashite_offsets_lanes_marking): a
 * null, or an entry that is no token, gets the zero record and its position in
 * marks[*marked ..]; only a group whose starts leave the buffer stops them. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_offsets32_marking)(
    const unsigned char *data, const int32_t *o, Py_ssize_t i, Py_ssize_t count, int64_t end,
    const uint8_t *bits, int64_t bit, unsigned char *out, const uint64_t *records, int epin,
    Py_ssize_t *marks, Py_ssize_t *marked)
{
    const __m256i limit = _mm256_set1_epi32((int32_t)(end - 3));
    if (end < 3)
        return i;
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (SASHITE_NAMED(sashite_group32)(data, o + (I), limit, &n, &w)                          \
     && (SASHITE_NAMED(sashite_mark8_wide)(n, w, epin, &keys, TO,                          \
                                           sashite_bits8(bits, bit + (I)), I, marks, marked),  \
         1))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_offsets64_marking)(
    const unsigned char *data, const int64_t *o, Py_ssize_t i, Py_ssize_t count, int64_t end,
    const uint8_t *bits, int64_t bit, unsigned char *out, const uint64_t *records, int epin,
    Py_ssize_t *marks, Py_ssize_t *marked)
{
    const __m256i limit = _mm256_set1_epi64x(end - 3);
    if (end < 3)
        return i;
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_group64_marking_avx2(data, o + (I), limit, &n, &w)                            \
     && (SASHITE_NAMED(sashite_mark8_wide)(n, w, epin, &keys, TO,                          \
                                           sashite_bits8(bits, bit + (I)), I, marks, marked),  \
         1))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_views_marking)(
    const unsigned char *v, Py_ssize_t i, Py_ssize_t count, const uint8_t *bits, int64_t bit,
    unsigned char *out, const uint64_t *records, int epin, Py_ssize_t *marks,
    Py_ssize_t *marked)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_group_views_avx2(v + 16 * (I), &n, &w),                                       \
     SASHITE_NAMED(sashite_mark8_wide)(n, w, epin, &keys, TO,                              \
                                       sashite_bits8(bits, bit + (I)), I, marks, marked),      \
     1)
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}
