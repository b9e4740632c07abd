/* numpy S (bytes) and U (UCS4) arrays of 1 to 4 characters an element, contiguous, eight
 * elements at a time under the AVX2, AVX-512 and NEON kernels (parse_fixed_width in
 * _bulk_c.pxi; its exact loop reads every other element and every other array).
 *
 * An element of width w holds its string and then NULs to its end (numpy strips
 * trailing NULs; a NUL inside is a character).  Each of the eight lanes gets the
 * element's first 4 characters as bytes, those past w cleared, and its length: one
 * more than the index of its last byte that is not NUL, counted as how many of the
 * word's four shifts (by 0, 8, 16, 24 bits) are not zero.  Then the rule on eight
 * lanes (_kernels.h) decides, as for Arrow columns and str objects.  A U element is
 * packed to bytes only when all its 4 code units are ASCII; a group holding any other
 * goes to the exact loop, which decides, reports and marks.  Reads are 4 characters
 * from each element's start, so the caller stops the lanes where that would pass the
 * array's end. */
#ifndef SASHITE_EPIN_FIXED_H
#define SASHITE_EPIN_FIXED_H

#include "_kernels.h"

#ifdef SASHITE_EPIN_AVX2

/* The lengths n of eight words x as above. */
SASHITE_AVX2_TARGET
static inline __m256i sashite_fixed_lengths(__m256i x)
{
    const __m256i zero = _mm256_setzero_si256();
    /* each compare is -1 where the shifted word is zero: 4 plus those is the count */
    __m256i empty = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cmpeq_epi32(x, zero),
                         _mm256_cmpeq_epi32(_mm256_srli_epi32(x, 8), zero)),
        _mm256_add_epi32(_mm256_cmpeq_epi32(_mm256_srli_epi32(x, 16), zero),
                         _mm256_cmpeq_epi32(_mm256_srli_epi32(x, 24), zero)));
    return _mm256_add_epi32(_mm256_set1_epi32(4), empty);
}

/* S elements: 4 bytes from each start, those past w cleared by keep. */
SASHITE_AVX2_TARGET
static inline int sashite_fixed_group_s(const unsigned char *e, Py_ssize_t w, __m256i keep,
                                        __m256i *n, __m256i *x)
{
    __m256i v = _mm256_setr_epi32(sashite_load32(e), sashite_load32(e + w),
                                  sashite_load32(e + 2 * w), sashite_load32(e + 3 * w),
                                  sashite_load32(e + 4 * w), sashite_load32(e + 5 * w),
                                  sashite_load32(e + 6 * w), sashite_load32(e + 7 * w));
    *x = _mm256_and_si256(v, keep);
    *n = sashite_fixed_lengths(*x);
    return 1;
}

/* U elements: 4 code units (16 bytes) from each start, those past w cleared by keep
 * (in each 128-bit half), all ASCII, packed to 4 bytes each. */
SASHITE_AVX2_TARGET
static inline int sashite_fixed_group_u(const unsigned char *e, Py_ssize_t w, __m256i keep,
                                        __m256i *n, __m256i *x)
{
    const Py_ssize_t s = 4 * w;
    __m256i a = _mm256_and_si256(_mm256_loadu2_m128i((const __m128i *)(e + s),
                                                     (const __m128i *)e), keep);
    __m256i b = _mm256_and_si256(_mm256_loadu2_m128i((const __m128i *)(e + 3 * s),
                                                     (const __m128i *)(e + 2 * s)), keep);
    __m256i c = _mm256_and_si256(_mm256_loadu2_m128i((const __m128i *)(e + 5 * s),
                                                     (const __m128i *)(e + 4 * s)), keep);
    __m256i d = _mm256_and_si256(_mm256_loadu2_m128i((const __m128i *)(e + 7 * s),
                                                     (const __m128i *)(e + 6 * s)), keep);
    /* a unit of 0x80 or more: not a token, whatever else */
    __m256i high = _mm256_and_si256(
        _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)),
        _mm256_set1_epi32(~0x7F));
    __m256i ab, cd, packed;
    if (!_mm256_testz_si256(high, high))
        return 0;
    /* units below 0x80 pack exactly: the halves hold elements 0 2 | 1 3 and 4 6 | 5 7,
     * then 0 2 4 6 | 1 3 5 7 as bytes, put back in order */
    ab = _mm256_packus_epi32(a, b);
    cd = _mm256_packus_epi32(c, d);
    packed = _mm256_packus_epi16(ab, cd);
    *x = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    *n = sashite_fixed_lengths(*x);
    return 1;
}

/* numpy StringDType elements (parse_string_dtype in _bulk_c.pxi), contiguous: 16-byte
 * packed strings, one of up to 15 bytes inline with the flags 0x60 and its size in the
 * low nibble of the last byte.  The eight elements' first words and flag bytes are
 * shuffled out of four loads; a group with any element that is not an inline ASCII
 * string of 1 to 4 bytes without a NUL goes to the exact loop. */
#define SASHITE_Z -128
#define SASHITE_PICK(J)                                                                    \
    {{J == 0 ? 0 : SASHITE_Z, J == 0 ? 1 : SASHITE_Z, J == 0 ? 2 : SASHITE_Z,              \
      J == 0 ? 3 : SASHITE_Z, J == 1 ? 0 : SASHITE_Z, J == 1 ? 1 : SASHITE_Z,              \
      J == 1 ? 2 : SASHITE_Z, J == 1 ? 3 : SASHITE_Z, J == 2 ? 0 : SASHITE_Z,              \
      J == 2 ? 1 : SASHITE_Z, J == 2 ? 2 : SASHITE_Z, J == 2 ? 3 : SASHITE_Z,              \
      J == 3 ? 0 : SASHITE_Z, J == 3 ? 1 : SASHITE_Z, J == 3 ? 2 : SASHITE_Z,              \
      J == 3 ? 3 : SASHITE_Z},                                                             \
     {J == 0 ? 15 : SASHITE_Z, SASHITE_Z, SASHITE_Z, SASHITE_Z, J == 1 ? 15 : SASHITE_Z,   \
      SASHITE_Z, SASHITE_Z, SASHITE_Z, J == 2 ? 15 : SASHITE_Z, SASHITE_Z, SASHITE_Z,      \
      SASHITE_Z, J == 3 ? 15 : SASHITE_Z, SASHITE_Z, SASHITE_Z, SASHITE_Z}}
/* per 128-bit lane (one element): its word to dword j, its flags byte to byte 4j */
static const int8_t sashite_string_picks[4][2][16] = {SASHITE_PICK(0), SASHITE_PICK(1),
                                                      SASHITE_PICK(2), SASHITE_PICK(3)};
#undef SASHITE_PICK
#undef SASHITE_Z

/* The eight elements' words and sizes, and per lane nonzero where the element is not
 * an inline ASCII string of 1 to 4 bytes without a NUL. */
SASHITE_AVX2_TARGET
static inline __m256i sashite_fixed_lanes_t(const unsigned char *e, __m256i *n, __m256i *x)
{
    __m256i words = _mm256_setzero_si256(), flags = _mm256_setzero_si256();
    for (int j = 0; j < 4; j++) {
        /* elements 2j (low lane) and 2j + 1 (high lane) */
        const __m256i v = _mm256_loadu_si256((const __m256i *)(e + 32 * j));
        const __m256i wm = _mm256_broadcastsi128_si256(
            _mm_loadu_si128((const __m128i *)sashite_string_picks[j][0]));
        const __m256i fm = _mm256_broadcastsi128_si256(
            _mm_loadu_si128((const __m128i *)sashite_string_picks[j][1]));
        words = _mm256_or_si256(words, _mm256_shuffle_epi8(v, wm));
        flags = _mm256_or_si256(flags, _mm256_shuffle_epi8(v, fm));
    }
    /* the lanes hold elements 0 2 4 6 | 1 3 5 7: back in order */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    words = _mm256_permutevar8x32_epi32(words, order);
    flags = _mm256_permutevar8x32_epi32(flags, order);
    const __m256i size = _mm256_and_si256(flags, _mm256_set1_epi32(15));
    const __m256i less = _mm256_sub_epi32(size, _mm256_set1_epi32(1)); /* 0..3 when fine */
    /* the size's bytes: all ones shifted right by 8 * (3 - less), less taken mod 4 */
    const __m256i keep = _mm256_srlv_epi32(
        _mm256_set1_epi32(-1),
        _mm256_slli_epi32(_mm256_and_si256(_mm256_sub_epi32(_mm256_set1_epi32(3), less),
                                           _mm256_set1_epi32(3)), 3));
    const __m256i high = _mm256_set1_epi32((int)0x80808080u);
    words = _mm256_and_si256(words, keep);
    /* not inline; a size outside 1..4; a byte of 0x80 or more; a NUL among its bytes */
    __m256i bad = _mm256_xor_si256(_mm256_and_si256(flags, _mm256_set1_epi32(0xF0)),
                                   _mm256_set1_epi32(0x60));
    bad = _mm256_or_si256(bad, _mm256_andnot_si256(_mm256_set1_epi32(3), less));
    bad = _mm256_or_si256(bad, _mm256_and_si256(words, high));
    const __m256i nul = _mm256_andnot_si256(
        words, _mm256_sub_epi32(words, _mm256_set1_epi32(0x01010101)));
    bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_and_si256(nul, high), keep));
    *x = words;
    *n = size;
    return bad;
}

SASHITE_AVX2_TARGET
static inline int sashite_fixed_group_t(const unsigned char *e, __m256i *n, __m256i *x)
{
    const __m256i bad = sashite_fixed_lanes_t(e, n, x);
    return _mm256_testz_si256(bad, bad);
}

/* Under errors="mark": the same lanes, and bit j set where element j is one the rule
 * may read (the others are marked, their reason found by the exact code). */
SASHITE_AVX2_TARGET
static inline unsigned sashite_fixed_group_t_mark(const unsigned char *e, __m256i *n,
                                                  __m256i *x)
{
    const __m256i bad = sashite_fixed_lanes_t(e, n, x);
    return (unsigned)_mm256_movemask_ps(
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(bad, _mm256_setzero_si256())));
}

/* The readers, one set per x86 kernel (kernels/generic/fixed.h). */
#define SASHITE_READERS "fixed.h"
#include "kernels/generic/x86_readers.h"
#endif /* SASHITE_EPIN_AVX2 */

#ifdef SASHITE_EPIN_NEON
/* NEON (_kernels.h: the rule on two 4-lane vectors): the same lanes, loaded by scalar
 * code into arrays, with the same checks. */

/* An element's length as above: how many of its word's four shifts are not zero. */
static inline uint32_t sashite_fixed_length(uint32_t x)
{
    return (uint32_t)(x != 0) + ((x >> 8) != 0) + ((x >> 16) != 0) + ((x >> 24) != 0);
}

static inline int sashite_fixed_group_s_neon(const unsigned char *e, Py_ssize_t w,
                                             uint32_t keep, uint32_t *n, uint32_t *x)
{
    int k;
    for (k = 0; k < 8; k++) {
        x[k] = (uint32_t)sashite_load32(e + k * w) & keep;
        n[k] = sashite_fixed_length(x[k]);
    }
    return 1;
}

/* U: the first 4 code units of each element, those past w cleared, all ASCII. */
static inline int sashite_fixed_group_u_neon(const unsigned char *e, Py_ssize_t w,
                                             uint32_t *n, uint32_t *x)
{
    int k, j;
    uint32_t unit, word;
    for (k = 0; k < 8; k++) {
        word = 0;
        for (j = 0; j < 4; j++) {
            unit = j < w ? (uint32_t)sashite_load32(e + 4 * (k * w + j)) : 0;
            if (unit > 0x7F)
                return 0;
            word |= unit << (8 * j);
        }
        x[k] = word;
        n[k] = sashite_fixed_length(word);
    }
    return 1;
}

/* StringDType: inline (flags 0x60 in the high nibble of byte 15, the size in its low
 * one), a size of 1 to 4, ASCII, no NUL among its bytes. */
static inline int sashite_fixed_group_t_neon(const unsigned char *e, uint32_t *n, uint32_t *x)
{
    int k;
    unsigned flags, size;
    uint32_t word, keep;
    for (k = 0; k < 8; k++) {
        flags = e[16 * k + 15];
        size = flags & 15;
        if ((flags & 0xF0) != 0x60 || size - 1 > 3)
            return 0;
        keep = (uint32_t)(UINT64_C(0xFFFFFFFF) >> (32 - 8 * size));
        word = (uint32_t)sashite_load32(e + 16 * k) & keep;
        /* a byte of 0x80 or more, or a NUL, among the size's bytes */
        if ((word & 0x80808080u) || ((word - 0x01010101u) & ~word & 0x80808080u & keep))
            return 0;
        x[k] = word;
        n[k] = size;
    }
    return 1;
}

#define SASHITE_LANES_STATE SASHITE_LANES_STATE_NEON
#define SASHITE_LANES_WRITE sashite_write_scalar
static Py_ssize_t sashite_fixed_s_neon(const unsigned char *base, Py_ssize_t i,
                                       Py_ssize_t count, Py_ssize_t width, unsigned char *out,
                                       const uint64_t *records, int epin)
{
    const uint32_t keep = (uint32_t)(UINT64_C(0xFFFFFFFF) >> (32 - 8 * width));
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_s_neon(base + (I) * width, width, keep, n, w)                     \
     && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
}

static Py_ssize_t sashite_fixed_u_neon(const unsigned char *base, Py_ssize_t i,
                                       Py_ssize_t count, Py_ssize_t width, unsigned char *out,
                                       const uint64_t *records, int epin)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_u_neon(base + (I) * 4 * width, width, n, w)                       \
     && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
}

static Py_ssize_t sashite_fixed_t_neon(const unsigned char *base, Py_ssize_t i,
                                       Py_ssize_t count, unsigned char *out,
                                       const uint64_t *records, int epin)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_fixed_group_t_neon(base + 16 * (I), n, w) && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
}
#include "kernels/generic/undef.h"
#endif /* SASHITE_EPIN_NEON */

/* The readers of a kernel; i itself for a kernel without lanes (the exact loop then
 * reads every element).  wide: U (else S). */
static inline Py_ssize_t sashite_fixed_lanes(int kernel, int wide, const unsigned char *base,
                                             Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,
                                             unsigned char *out, const uint64_t *records,
                                             int epin)
{
    /* a build without lanes reads none of these */
    (void)wide, (void)base, (void)count, (void)width, (void)out, (void)records, (void)epin;
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return (wide ? sashite_fixed_u_avx512 : sashite_fixed_s_avx512)(
            base, i, count, width, out, records, epin);
    case SASHITE_KERNEL_AVX2:
        return (wide ? sashite_fixed_u_avx2 : sashite_fixed_s_avx2)(
            base, i, count, width, out, records, epin);
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON:
        return (wide ? sashite_fixed_u_neon : sashite_fixed_s_neon)(
            base, i, count, width, out, records, epin);
#endif
    default:
        return i;
    }
}

/* sashite_fixed_lanes under errors="mark" (x86 kernels; i itself under any other):
 * see kernels/generic/fixed.h. */
static inline Py_ssize_t sashite_fixed_lanes_marking(int kernel, int wide,
                                                     const unsigned char *base, Py_ssize_t i,
                                                     Py_ssize_t count, Py_ssize_t width,
                                                     unsigned char *out,
                                                     const uint64_t *records, int epin,
                                                     Py_ssize_t *marks, uint32_t *words,
                                                     Py_ssize_t *m)
{
    (void)wide, (void)base, (void)count, (void)width, (void)out, (void)records, (void)epin;
    (void)marks, (void)words, (void)m;
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return (wide ? sashite_fixed_u_marking_avx512 : sashite_fixed_s_marking_avx512)(
            base, i, count, width, out, records, epin, marks, words, m);
    case SASHITE_KERNEL_AVX2:
        return (wide ? sashite_fixed_u_marking_avx2 : sashite_fixed_s_marking_avx2)(
            base, i, count, width, out, records, epin, marks, words, m);
#endif
    default:
        return i;
    }
}

/* sashite_strings_lanes under errors="mark" (x86 kernels; i itself under any other):
 * an element that is not an inline token gets the zero record and its position in
 * marks[*m ..] (room for count - i more), and the reading goes on. */
static inline Py_ssize_t sashite_strings_lanes_marking(int kernel, const unsigned char *base,
                                                       Py_ssize_t i, Py_ssize_t count,
                                                       unsigned char *out,
                                                       const uint64_t *records, int epin,
                                                       Py_ssize_t *marks, Py_ssize_t *m)
{
    (void)base, (void)count, (void)out, (void)records, (void)epin, (void)marks, (void)m;
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return sashite_fixed_t_marking_avx512(base, i, count, out, records, epin, marks, m);
    case SASHITE_KERNEL_AVX2:
        return sashite_fixed_t_marking_avx2(base, i, count, out, records, epin, marks, m);
#endif
    default:
        return i;
    }
}

static inline Py_ssize_t sashite_strings_lanes(int kernel, const unsigned char *base,
                                               Py_ssize_t i, Py_ssize_t count,
                                               unsigned char *out, const uint64_t *records,
                                               int epin)
{
    (void)base, (void)count, (void)out, (void)records, (void)epin;
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return sashite_fixed_t_avx512(base, i, count, out, records, epin);
    case SASHITE_KERNEL_AVX2:
        return sashite_fixed_t_avx2(base, i, count, out, records, epin);
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON:
        return sashite_fixed_t_neon(base, i, count, out, records, epin);
#endif
    default:
        return i;
    }
}

#endif
