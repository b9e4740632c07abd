/* The numpy array readers of an x86 kernel (AVX2 or AVX-512), written once: _fixed.h
 * includes this file once per kernel, after defining what kernels/generic/columns.h
 * takes, and undefines them after.  Elements i to count - 1 from base, records to
 * out + 5 * i; each returns the first element it did not write.  The group loaders are
 * _fixed.h's. */

/* S: elements of width (1-4) bytes. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_fixed_s)(
    const unsigned char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,
    unsigned char *out, const uint64_t *records, int epin)
{
    const __m256i keep = _mm256_set1_epi32((int)(UINT64_C(0xFFFFFFFF) >> (32 - 8 * width)));
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_s(base + (I) * width, width, keep, &n, &w)                        \
     && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* U: elements of width (1-4) UCS-4 code units. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_fixed_u)(
    const unsigned char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,
    unsigned char *out, const uint64_t *records, int epin)
{
    const int two = width > 1 ? -1 : 0, three = width > 2 ? -1 : 0, four = width > 3 ? -1 : 0;
    const __m256i keep = _mm256_setr_epi32(-1, two, three, four, -1, two, three, four);
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_u(base + (I) * 4 * width, width, keep, &n, &w)                    \
     && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* StringDType: 16-byte packed strings. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_fixed_t)(
    const unsigned char *base, Py_ssize_t i, Py_ssize_t count, unsigned char *out,
    const uint64_t *records, int epin)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_t(base + 16 * (I), &n, &w) && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* S and U under errors="mark": an element that is no token gets the zero record and
 * its position in marks[*marked ..] and its word (its units, those past width 0) in
 * keys[*marked ..] (room for count - i + 8 more in each), and the reading goes on;
 * only a U group holding a unit of 0x80 or more stops them (the exact loop reads that
 * group). */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_fixed_s_marking)(
    const unsigned char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,
    unsigned char *out, const uint64_t *records, int epin, Py_ssize_t *marks,
    uint32_t *words, Py_ssize_t *marked)
{
    const __m256i keep = _mm256_set1_epi32((int)(UINT64_C(0xFFFFFFFF) >> (32 - 8 * width)));
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_s(base + (I) * width, width, keep, &n, &w),                       \
     SASHITE_MARK8_KEYS(n, w, epin, &keys, TO, I, marks, words, marked), 1)
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_fixed_u_marking)(
    const unsigned char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,
    unsigned char *out, const uint64_t *records, int epin, Py_ssize_t *marks,
    uint32_t *words, Py_ssize_t *marked)
{
    const int two = width > 1 ? -1 : 0, three = width > 2 ? -1 : 0, four = width > 3 ? -1 : 0;
    const __m256i keep = _mm256_setr_epi32(-1, two, three, four, -1, two, three, four);
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_u(base + (I) * 4 * width, width, keep, &n, &w)                    \
     && (SASHITE_MARK8_KEYS(n, w, epin, &keys, TO, I, marks, words, marked), 1))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* StringDType under errors="mark": an element that is no inline token (a typo, an empty
 * or missing string, a longer one) gets the zero record and its position in
 * marks[*marked ..] (room for 8 past the last), and the reading goes on. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_fixed_t_marking)(
    const unsigned char *base, Py_ssize_t i, Py_ssize_t count, unsigned char *out,
    const uint64_t *records, int epin, Py_ssize_t *marks, Py_ssize_t *marked)
{
    unsigned readable;
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (readable = sashite_fixed_group_t_mark(base + 16 * (I), &n, &w),                       \
     SASHITE_MARK8_ROOM(n, w, epin, &keys, TO, readable, I, marks, marked), 1)
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}
