/* numpy S (bytes) and U (UCS4) arrays of 1 to 4 characters an element, contiguous, eight
 * elements at a time under the AVX2 and AVX-512 kernels (parse_fixed_width in
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

/* The readers, one pair per kernel: elements i to count - 1 of width (1-4) from
 * base, records to out + 5 * i; each returns the first element it did not write. */
#define SASHITE_DEFINE_FIXED_READERS(K, TARGET, PIN, NARROW, WRITE)                        \
    TARGET static Py_ssize_t sashite_fixed_s_##K(                                          \
        const unsigned char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,       \
        unsigned char *out, const uint64_t *records, int epin)                             \
    {                                                                                      \
        const __m256i keep = _mm256_set1_epi32((int)(UINT64_C(0xFFFFFFFF) >> (32 - 8 * width)));   \
        SASHITE_LANES_LOOP(SASHITE_FIXED_S, PIN, NARROW, WRITE)                            \
    }                                                                                      \
    TARGET static Py_ssize_t sashite_fixed_u_##K(                                          \
        const unsigned char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t width,       \
        unsigned char *out, const uint64_t *records, int epin)                             \
    {                                                                                      \
        const int two = width > 1 ? -1 : 0, three = width > 2 ? -1 : 0,                    \
                  four = width > 3 ? -1 : 0;                                               \
        const __m256i keep = _mm256_setr_epi32(-1, two, three, four, -1, two, three, four); \
        SASHITE_LANES_LOOP(SASHITE_FIXED_U, PIN, NARROW, WRITE)                            \
    }

#define SASHITE_FIXED_S(I, N, X) sashite_fixed_group_s(base + (I) * width, width, keep, N, X)
#define SASHITE_FIXED_U(I, N, X) sashite_fixed_group_u(base + (I) * 4 * width, width, keep, N, X)
SASHITE_DEFINE_FIXED_READERS(avx2, SASHITE_AVX2_TARGET, SASHITE_PIN_KEYS_NONE,
                             sashite_narrow_avx2, sashite_write_scalar)
SASHITE_DEFINE_FIXED_READERS(avx512, SASHITE_AVX512_TARGET, SASHITE_PIN_KEYS,
                             sashite_narrow_avx512, sashite_write_avx512)
#undef SASHITE_FIXED_S
#undef SASHITE_FIXED_U

#else
/* A build without AVX2 (no kernel selects these): the exact loop reads every element. */
#define SASHITE_DEFINE_FIXED_READERS(K)                                                    \
    SASHITE_NO_LANES(sashite_fixed_s_##K, const unsigned char *base, Py_ssize_t i,         \
                     Py_ssize_t count, Py_ssize_t width, unsigned char *out,               \
                     const uint64_t *records, int epin)                                    \
    SASHITE_NO_LANES(sashite_fixed_u_##K, const unsigned char *base, Py_ssize_t i,         \
                     Py_ssize_t count, Py_ssize_t width, unsigned char *out,               \
                     const uint64_t *records, int epin)
SASHITE_DEFINE_FIXED_READERS(avx2)
SASHITE_DEFINE_FIXED_READERS(avx512)
#endif /* SASHITE_EPIN_AVX2 */

#endif
