/* strict tokenize (_text_c.pxi): where the first byte stands that FEEN's piece placement
 * does not allow, neither a token's (a letter, "+", "-", "^", and EPIN's "'") nor what
 * lies between tokens (a digit of a run of empty squares, the "/" of a rank or layer
 * separator).  Which tokens those bytes make is the scan's business, not this one's: it
 * only finds the first byte that no placement holds, so the scan stops there.
 *
 * 64 bytes a step, every byte's test ANDed into one vector, so a valid placement costs
 * a few instructions per vector and one branch per 64 bytes, in the bytes kernel's
 * instruction set (sashite.BYTES_KERNEL, chosen at run time): AVX2 under the avx2 and
 * avx512 kernels, SSE2 under sse2, NEON under neon, plain C under portable; all give
 * the same answer.  AVX2 halves SSE2's instructions, which cost strict tokenize_many
 * 14 % on a column in cache. */
#ifndef SASHITE_EPIN_STRICT_H
#define SASHITE_EPIN_STRICT_H

#include "_kernels.h" /* SASHITE_EPIN_SSE2 / _NEON / _AVX2, their intrinsics and targets */

/* Whether byte b may stand in a strict placement of the notation (epin: EPIN's). */
static inline int sashite_strict_allowed(unsigned char b, int epin) {
    return (unsigned char)((b | 0x20) - 'a') < 26         /* a letter */
           || (unsigned char)(b - '0') < 10               /* a digit */
           || b == '/' || b == '+' || b == '-' || b == '^' /* a separator, a marker */
           || (epin && b == '\'');
}

#ifdef SASHITE_EPIN_SSE2
/* 0xFF in each lane of v that holds an allowed byte.  "+" to "9" (0x2B..0x39) is one
 * range less "," and "." (0x2C, 0x2E: the two bytes that OR 2 makes 0x2E). */
static inline __m128i sashite_strict_sse2(__m128i v, __m128i apos) {
    const __m128i letter_t = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
                                          _mm_set1_epi8('a'));
    const __m128i letter = _mm_cmpeq_epi8(_mm_min_epu8(letter_t, _mm_set1_epi8(25)), letter_t);
    const __m128i mid_t = _mm_sub_epi8(v, _mm_set1_epi8(0x2B));
    const __m128i mid = _mm_andnot_si128(
        _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(2)), _mm_set1_epi8(0x2E)),
        _mm_cmpeq_epi8(_mm_min_epu8(mid_t, _mm_set1_epi8(14)), mid_t));
    return _mm_or_si128(_mm_or_si128(letter, mid),
                        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('^')),
                                     _mm_cmpeq_epi8(v, apos)));
}
#endif

#ifdef SASHITE_EPIN_NEON
static inline uint8x16_t sashite_strict_neon(uint8x16_t v, uint8x16_t apos) {
    const uint8x16_t letter = vcleq_u8(vsubq_u8(vorrq_u8(v, vdupq_n_u8(0x20)), vdupq_n_u8('a')),
                                       vdupq_n_u8(25));
    const uint8x16_t mid = vbicq_u8(vcleq_u8(vsubq_u8(v, vdupq_n_u8(0x2B)), vdupq_n_u8(14)),
                                    vceqq_u8(vorrq_u8(v, vdupq_n_u8(2)), vdupq_n_u8(0x2E)));
    return vorrq_u8(vorrq_u8(letter, mid),
                    vorrq_u8(vceqq_u8(v, vdupq_n_u8('^')), vceqq_u8(v, apos)));
}
#endif

#ifdef SASHITE_EPIN_AVX2
/* sashite_strict_sse2 on 32 lanes. */
SASHITE_AVX2_TARGET static inline __m256i sashite_strict_avx2(__m256i v, __m256i apos) {
    const __m256i letter_t = _mm256_sub_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)),
                                             _mm256_set1_epi8('a'));
    const __m256i letter = _mm256_cmpeq_epi8(_mm256_min_epu8(letter_t, _mm256_set1_epi8(25)),
                                             letter_t);
    const __m256i mid_t = _mm256_sub_epi8(v, _mm256_set1_epi8(0x2B));
    const __m256i mid = _mm256_andnot_si256(
        _mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8(2)), _mm256_set1_epi8(0x2E)),
        _mm256_cmpeq_epi8(_mm256_min_epu8(mid_t, _mm256_set1_epi8(14)), mid_t));
    return _mm256_or_si256(_mm256_or_si256(letter, mid),
                           _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('^')),
                                           _mm256_cmpeq_epi8(v, apos)));
}

/* How far the whole 64-byte blocks of p[0..n-1] hold only allowed bytes: the start of
 * the first block that does not, or of the last bytes that make no block. */
SASHITE_AVX2_TARGET static Py_ssize_t sashite_strict_blocks_avx2(const unsigned char *p,
                                                                 Py_ssize_t n, int epin) {
    const __m256i apos = _mm256_set1_epi8(epin ? '\'' : '+');
    Py_ssize_t i = 0;
    for (; n - i >= 64; i += 64) {
        __m256i all = _mm256_and_si256(
            sashite_strict_avx2(_mm256_loadu_si256((const __m256i *)(p + i)), apos),
            sashite_strict_avx2(_mm256_loadu_si256((const __m256i *)(p + i + 32)), apos));
        if (_mm256_movemask_epi8(all) != -1)
            break;
    }
    return i;
}
#endif

/* The index of the first byte of p[0..n-1] a strict placement does not allow, or n;
 * kernel: the bytes kernel's number (SASHITE_KERNEL_*, one this CPU runs). */
static inline Py_ssize_t sashite_strict_stray(const unsigned char *p, Py_ssize_t n, int epin,
                                              int kernel) {
    Py_ssize_t i = 0;
#ifdef SASHITE_EPIN_AVX2
    if (kernel == SASHITE_KERNEL_AVX2 || kernel == SASHITE_KERNEL_AVX512)
        i = sashite_strict_blocks_avx2(p, n, epin); /* the SSE2 loop reads on: one block */
#endif
#if defined(SASHITE_EPIN_SSE2)
    /* "'" is EPIN's; under PIN the lanes compare with 0x2B, allowed anyway */
    const __m128i apos = _mm_set1_epi8(epin ? '\'' : '+');
    for (; kernel != SASHITE_KERNEL_PORTABLE && n - i >= 64; i += 64) {
        __m128i all = _mm_and_si128(
            _mm_and_si128(sashite_strict_sse2(_mm_loadu_si128((const __m128i *)(p + i)), apos),
                          sashite_strict_sse2(_mm_loadu_si128((const __m128i *)(p + i + 16)), apos)),
            _mm_and_si128(sashite_strict_sse2(_mm_loadu_si128((const __m128i *)(p + i + 32)), apos),
                          sashite_strict_sse2(_mm_loadu_si128((const __m128i *)(p + i + 48)), apos)));
        if (_mm_movemask_epi8(all) != 0xFFFF)
            break; /* the byte is in this block: found below */
    }
#elif defined(SASHITE_EPIN_NEON)
    const uint8x16_t apos = vdupq_n_u8(epin ? '\'' : '+');
    for (; kernel != SASHITE_KERNEL_PORTABLE && n - i >= 64; i += 64) {
        uint8x16_t all = vandq_u8(
            vandq_u8(sashite_strict_neon(vld1q_u8(p + i), apos),
                     sashite_strict_neon(vld1q_u8(p + i + 16), apos)),
            vandq_u8(sashite_strict_neon(vld1q_u8(p + i + 32), apos),
                     sashite_strict_neon(vld1q_u8(p + i + 48), apos)));
        if (vminvq_u8(all) != 0xFF)
            break;
    }
#endif
    (void)kernel;
    for (; i < n; i++)
        if (!sashite_strict_allowed(p[i], epin))
            return i;
    return n;
}

#endif
