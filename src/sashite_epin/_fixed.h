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

/* numpy StringDType elements (parse_string_dtype in _bulk_c.pxi): 16-byte packed
 * strings, one of up to 15 bytes inline with the flags 0x60 and its size in the last
 * byte.  Elements 0, 1, ... are copied into out, 4 bytes each and NUL-padded like an
 * S4 array, while each is an inline ASCII string of 1 to 4 bytes without a NUL; the
 * number copied is returned.  Eight at a time with the checks OR-ed together and no
 * branch inside (the compiler unrolls it); a group that fails is redone one by one to
 * find where to stop. */
static inline uint32_t sashite_short_string(const unsigned char *e, uint32_t *word)
{
    const uint32_t flags = e[15], n = flags & 15;
    const uint32_t keep = 0xFFFFFFFFu >> ((8 * (4 - n)) & 31);
    uint32_t w;
    memcpy(&w, e, 4);
    w &= keep;
    *word = w;
    /* nonzero when: not inline, a size outside 1..4, a non-ASCII byte, or a NUL among
     * the string's bytes (S reading would drop a final one) */
    return ((flags & 0xF0) ^ 0x60) | (uint32_t)(n - 1 > 3) | (w & 0x80808080u) |
           ((w - 0x01010101u) & ~w & 0x80808080u & keep);
}

#ifdef SASHITE_EPIN_AVX2
/* Eight contiguous elements (128 bytes) at once: each 16-byte element's first word and
 * its flags byte shuffled out of four loads, the checks on eight lanes.  0 when all
 * eight are packable (their words then stored), else nonzero (nothing stored). */
SASHITE_AVX2_TARGET
static inline int sashite_pack_group_avx2(const unsigned char *e, unsigned char *out)
{
    __m256i words = _mm256_setzero_si256(), flags = _mm256_setzero_si256();
    for (int j = 0; j < 4; j++) {
        /* element 2j in the low 128-bit lane, 2j + 1 in the high: its word to dword j
         * of its lane, its flags byte to byte 4j */
        const __m256i x = _mm256_loadu_si256((const __m256i *)(e + 32 * j));
        const char w = (char)(4 * j), z = (char)0x80;
        const __m128i wm = _mm_setr_epi8(
            (char)(j == 0 ? 0 : z), (char)(j == 0 ? 1 : z), (char)(j == 0 ? 2 : z),
            (char)(j == 0 ? 3 : z), (char)(j == 1 ? 0 : z), (char)(j == 1 ? 1 : z),
            (char)(j == 1 ? 2 : z), (char)(j == 1 ? 3 : z), (char)(j == 2 ? 0 : z),
            (char)(j == 2 ? 1 : z), (char)(j == 2 ? 2 : z), (char)(j == 2 ? 3 : z),
            (char)(j == 3 ? 0 : z), (char)(j == 3 ? 1 : z), (char)(j == 3 ? 2 : z),
            (char)(j == 3 ? 3 : z));
        const __m128i fm = _mm_setr_epi8(
            (char)(w == 0 ? 15 : z), z, z, z, (char)(w == 4 ? 15 : z), z, z, z,
            (char)(w == 8 ? 15 : z), z, z, z, (char)(w == 12 ? 15 : z), z, z, z);
        words = _mm256_or_si256(words, _mm256_shuffle_epi8(x, _mm256_set_m128i(wm, wm)));
        flags = _mm256_or_si256(flags, _mm256_shuffle_epi8(x, _mm256_set_m128i(fm, fm)));
    }
    /* lanes now hold elements 0 2 4 6 | 1 3 5 7: back to 0..7 */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    words = _mm256_permutevar8x32_epi32(words, order);
    flags = _mm256_permutevar8x32_epi32(flags, order);
    const __m256i n = _mm256_and_si256(flags, _mm256_set1_epi32(15));
    const __m256i keep = _mm256_srlv_epi32(
        _mm256_set1_epi32(-1),
        _mm256_and_si256(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(4), n), 3),
                         _mm256_set1_epi32(31)));
    words = _mm256_and_si256(words, keep);
    const __m256i high = _mm256_set1_epi32((int)0x80808080u);
    __m256i bad = _mm256_xor_si256(_mm256_and_si256(flags, _mm256_set1_epi32(0xF0)),
                                   _mm256_set1_epi32(0x60));
    /* n - 1 > 3, unsigned: n outside 1..4 */
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(_mm256_sub_epi32(n, _mm256_set1_epi32(1)),
                                                  _mm256_set1_epi32(3)));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(_mm256_setzero_si256(),
                                                  _mm256_sub_epi32(n, _mm256_set1_epi32(1))));
    bad = _mm256_or_si256(bad, _mm256_and_si256(words, high));
    const __m256i nul = _mm256_andnot_si256(
        words, _mm256_sub_epi32(words, _mm256_set1_epi32(0x01010101)));
    bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_and_si256(nul, high), keep));
    if (!_mm256_testz_si256(bad, bad))
        return 1;
    _mm256_storeu_si256((__m256i *)out, words);
    return 0;
}
#endif

static inline Py_ssize_t sashite_pack_short_strings(const unsigned char *base,
                                                    Py_ssize_t stride, Py_ssize_t count,
                                                    unsigned char *out, int kernel)
{
    Py_ssize_t k = 0;
    uint32_t word;
#ifdef SASHITE_EPIN_AVX2
    if (kernel >= SASHITE_KERNEL_AVX2 && stride == 16) {
        while (k + 8 <= count && !sashite_pack_group_avx2(base + 16 * k, out + 4 * k))
            k += 8;
    }
#else
    (void)kernel;
#endif
    for (; k + 8 <= count; k += 8) {
        uint32_t bad = 0;
        for (int j = 0; j < 8; j++) {
            bad |= sashite_short_string(base + (k + j) * stride, &word);
            memcpy(out + 4 * (k + j), &word, 4);
        }
        if (bad)
            break;
    }
    for (; k < count; k++) {
        if (sashite_short_string(base + k * stride, &word))
            return k;
        memcpy(out + 4 * k, &word, 4);
    }
    return count;
}

#endif
