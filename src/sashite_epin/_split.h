/* Where the whitespace-separated tokens of a byte buffer start and end, 64 bytes at a
 * time (the first stage of a simdjson-style two-stage scan; _bulk_c.pxi decodes the
 * tokens).  Separators are bytes.split()'s whitespace: 9-13 and 32.  Only the
 * container's separators live here; the token grammar stays in the core's tables.
 *
 * SSE2 where the compiler has it (every x86-64), NEON on aarch64 (part of its baseline),
 * portable C elsewhere: all give the same mask, bit i set when byte i is a separator. */
#ifndef SASHITE_EPIN_SPLIT_H
#define SASHITE_EPIN_SPLIT_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define SASHITE_EPIN_SSE2 1
#endif
#if (defined(__aarch64__) || defined(_M_ARM64)) && !defined(__ARM_BIG_ENDIAN)
#include <arm_neon.h>
#define SASHITE_EPIN_NEON 1
#endif

/* The lowest and the highest set bit of x (x != 0). */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static inline int sashite_ctz64(uint64_t x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
static inline int sashite_top64(uint64_t x) {
    unsigned long i;
    _BitScanReverse64(&i, x);
    return (int)i;
}
#else
#define sashite_ctz64(x) __builtin_ctzll(x)
#define sashite_top64(x) (63 - __builtin_clzll(x))
#endif

static inline int sashite_popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline int sashite_is_sep(unsigned char b) {
    return b == 32 || (unsigned char)(b - 9) < 5;
}

#ifdef SASHITE_EPIN_NEON
/* NEON has no movemask: four compare results (each byte 0 or 0xFF) to one 64-bit mask,
 * bit i for byte i, by keeping bit (i % 8) of byte i and adding neighbours pairwise
 * three times (simdjson's way). */
static inline uint64_t sashite_neon_mask64(uint8x16_t m0, uint8x16_t m1, uint8x16_t m2,
                                           uint8x16_t m3) {
    static const uint8_t bit_of[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                       1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t bits = vld1q_u8(bit_of);
    uint8x16_t a = vpaddq_u8(vandq_u8(m0, bits), vandq_u8(m1, bits));
    uint8x16_t b = vpaddq_u8(vandq_u8(m2, bits), vandq_u8(m3, bits));
    a = vpaddq_u8(a, b);
    a = vpaddq_u8(a, a);
    return vgetq_lane_u64(vreinterpretq_u64_u8(a), 0);
}

/* Separators of 16 bytes: 32, or 9 to 13. */
static inline uint8x16_t sashite_neon_sep(uint8x16_t v) {
    return vorrq_u8(vceqq_u8(v, vdupq_n_u8(32)),
                    vcleq_u8(vsubq_u8(v, vdupq_n_u8(9)), vdupq_n_u8(4)));
}

/* ASCII letters of 16 bytes. */
static inline uint8x16_t sashite_neon_letter(uint8x16_t v) {
    return vcleq_u8(vsubq_u8(vorrq_u8(v, vdupq_n_u8(0x20)), vdupq_n_u8('a')),
                    vdupq_n_u8(25));
}
#endif

/* The high bit of each byte of x (the others clear), as 8 bits: bit i for byte i. */
static inline uint64_t sashite_high_bits8(uint64_t x) {
    return (x * UINT64_C(0x0002040810204081)) >> 56;
}

/* The high bit of each byte of the 8 little-endian bytes w that is a separator, SWAR:
 * a byte below 0x80 is one exactly when it is 32, or 9 to 13 (its low 7 bits plus
 * 0x77 reach 0x80, plus 0x72 do not); no carry crosses a byte, as the low 7 bits plus
 * at most 0x7F stay below 0x100. */
static inline uint64_t sashite_sep_bits_swar(uint64_t w) {
    const uint64_t ones = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
    uint64_t low = w & ~high;
    uint64_t space = low ^ (ones * 32); /* zero where 32 */
    uint64_t is_space = ~((space + ones * 0x7F) | space) & high;
    uint64_t from_nine = (low + ones * 0x77) & high;
    uint64_t from_fourteen = (low + ones * 0x72) & high;
    return (is_space | (from_nine & ~from_fourteen)) & ~w;
}

/* p[0..7] as one integer, byte 0 lowest, whatever the CPU's byte order (one load where
 * it is little-endian): what the SWAR tests and packs here read. */
static inline uint64_t sashite_load64_le(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* Separator mask of p[0..63] (all 64 bytes readable), in plain C whatever the CPU:
 * eight bytes at a time. */
static inline uint64_t sashite_sep_mask64_portable(const unsigned char *p) {
    uint64_t mask = 0;
    int i;
    for (i = 0; i < 8; i++)
        mask |= sashite_high_bits8(sashite_sep_bits_swar(sashite_load64_le(p + 8 * i))) << (8 * i);
    return mask;
}

/* Separator mask of p[0..63]; all 64 bytes must be readable. */
static inline uint64_t sashite_sep_mask64(const unsigned char *p) {
#ifdef SASHITE_EPIN_SSE2
    const __m128i space = _mm_set1_epi8(32), nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4);
    uint64_t mask = 0;
    int i;
    for (i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        __m128i t = _mm_sub_epi8(v, nine); /* 9..13 -> 0..4, unsigned */
        __m128i sep = _mm_or_si128(_mm_cmpeq_epi8(v, space),
                                   _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
        mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(sep) << (16 * i);
    }
    return mask;
#elif defined(SASHITE_EPIN_NEON)
    return sashite_neon_mask64(sashite_neon_sep(vld1q_u8(p)), sashite_neon_sep(vld1q_u8(p + 16)),
                               sashite_neon_sep(vld1q_u8(p + 32)),
                               sashite_neon_sep(vld1q_u8(p + 48)));
#else
    return sashite_sep_mask64_portable(p);
#endif
}

/* Loading 8 bytes as one integer, whatever the alignment (one mov on x86). */
static inline uint64_t sashite_load64(const unsigned char *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* How many bytes of p[0..n) are a newline (for the line a marked token of a buffer is
 * on).  SSE2: each compare's 0xFF bytes subtracted from per-lane counts, which a sum of
 * absolute differences adds up every 255 blocks at most; portable C: the same by SWAR
 * (a newline byte is zero after the XOR, and ((x & 0x7F..) + 0x7F..) | x sets the top
 * bit of exactly the nonzero bytes, no carry crossing a byte); the last bytes one by
 * one.  A memchr per line cost 5 ns a line: a marked token late in a big buffer cost
 * more than the whole parse. */
static inline int64_t sashite_count_newlines(const unsigned char *p, int64_t n) {
    int64_t lines = 0, i = 0;
#ifdef SASHITE_EPIN_SSE2
    /* Four counters, one per 16 bytes of each 64, so that each block need not wait on
     * the one before's subtraction (the 0.1 % dirty bytes bench: 1.28-1.30x a clean
     * input's time with four, 1.31-1.34x with one). */
    const __m128i newline = _mm_set1_epi8(10), zero = _mm_setzero_si128();
    while (i + 64 <= n) {
        __m128i c0 = zero, c1 = zero, c2 = zero, c3 = zero, sums;
        int64_t stop = i + 64 * 255 < n ? i + 64 * 255 : n;
        for (; i + 64 <= stop; i += 64) {
            c0 = _mm_sub_epi8(c0, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), newline));
            c1 = _mm_sub_epi8(c1, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 16)), newline));
            c2 = _mm_sub_epi8(c2, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 32)), newline));
            c3 = _mm_sub_epi8(c3, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 48)), newline));
        }
        sums = _mm_add_epi64(_mm_add_epi64(_mm_sad_epu8(c0, zero), _mm_sad_epu8(c1, zero)),
                             _mm_add_epi64(_mm_sad_epu8(c2, zero), _mm_sad_epu8(c3, zero)));
        lines += _mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
#elif defined(SASHITE_EPIN_NEON)
    /* the same: the 0xFF bytes subtracted from per-lane counts, added across lanes at
     * most every 255 blocks */
    const uint8x16_t newline = vdupq_n_u8(10);
    while (i + 64 <= n) {
        uint8x16_t c0 = vdupq_n_u8(0), c1 = c0, c2 = c0, c3 = c0;
        int64_t stop = i + 64 * 255 < n ? i + 64 * 255 : n;
        for (; i + 64 <= stop; i += 64) {
            c0 = vsubq_u8(c0, vceqq_u8(vld1q_u8(p + i), newline));
            c1 = vsubq_u8(c1, vceqq_u8(vld1q_u8(p + i + 16), newline));
            c2 = vsubq_u8(c2, vceqq_u8(vld1q_u8(p + i + 32), newline));
            c3 = vsubq_u8(c3, vceqq_u8(vld1q_u8(p + i + 48), newline));
        }
        lines += vaddlvq_u8(c0) + vaddlvq_u8(c1) + vaddlvq_u8(c2) + vaddlvq_u8(c3);
    }
#else
    for (; i + 8 <= n; i += 8) {
        uint64_t w = sashite_load64(p + i) ^ 0x0A0A0A0A0A0A0A0AULL;
        w = ((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w;
        /* the top bits down to 0/1 per byte, summed into the top byte by a multiply */
        lines += (int64_t)((((~w & 0x8080808080808080ULL) >> 7) * 0x0101010101010101ULL) >> 56);
    }
#endif
    for (; i < n; i++) lines += p[i] == 10;
    return lines;
}

/* The high bit of each byte of the 8 little-endian bytes w that equals c, SWAR, exactly
 * (a byte equal to c is zero after the XOR; ((x & 0x7F..) + 0x7F..) | x sets the top
 * bit of exactly the nonzero bytes, no carry crossing a byte). */
static inline uint64_t sashite_byte_bits_swar(uint64_t w, unsigned char c) {
    const uint64_t low = UINT64_C(0x7F7F7F7F7F7F7F7F);
    uint64_t x = w ^ (UINT64_C(0x0101010101010101) * c);
    return ~(((x & low) + low) | x) & UINT64_C(0x8080808080808080);
}

/* Masks of p[0..63] (all 64 bytes readable) for reading one token a line, bit i for
 * byte i: separators (as sashite_sep_mask64), newlines (10), carriage returns (13);
 * portable: in plain C whatever the CPU has, as the portable kernel reads. */
static inline void sashite_line_masks64(const unsigned char *p, int portable, uint64_t *sep,
                                        uint64_t *newlines, uint64_t *returns) {
    uint64_t n = 0, r = 0;
    int i;
    if (portable) {
        for (i = 0; i < 8; i++) {
            uint64_t w = sashite_load64_le(p + 8 * i);
            n |= sashite_high_bits8(sashite_byte_bits_swar(w, 10)) << (8 * i);
            r |= sashite_high_bits8(sashite_byte_bits_swar(w, 13)) << (8 * i);
        }
        *sep = sashite_sep_mask64_portable(p), *newlines = n, *returns = r;
        return;
    }
#ifdef SASHITE_EPIN_SSE2
    {
        const __m128i ten = _mm_set1_epi8(10), thirteen = _mm_set1_epi8(13);
        for (i = 0; i < 4; i++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * i));
            n |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, ten)) << (16 * i);
            r |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, thirteen)) << (16 * i);
        }
    }
#elif defined(SASHITE_EPIN_NEON)
    {
        uint8x16_t v0 = vld1q_u8(p), v1 = vld1q_u8(p + 16), v2 = vld1q_u8(p + 32),
                   v3 = vld1q_u8(p + 48), ten = vdupq_n_u8(10), thirteen = vdupq_n_u8(13);
        n = sashite_neon_mask64(vceqq_u8(v0, ten), vceqq_u8(v1, ten), vceqq_u8(v2, ten),
                                vceqq_u8(v3, ten));
        r = sashite_neon_mask64(vceqq_u8(v0, thirteen), vceqq_u8(v1, thirteen),
                                vceqq_u8(v2, thirteen), vceqq_u8(v3, thirteen));
        (void)i;
    }
#else
    for (i = 0; i < 8; i++) {
        uint64_t w = sashite_load64_le(p + 8 * i);
        n |= sashite_high_bits8(sashite_byte_bits_swar(w, 10)) << (8 * i);
        r |= sashite_high_bits8(sashite_byte_bits_swar(w, 13)) << (8 * i);
    }
#endif
    *sep = sashite_sep_mask64(p), *newlines = n, *returns = r;
}

/* One token a line (lines end at b"\n"; one final b"\r" of a line, before its b"\n" or
 * at the buffer's end, is no part of it): the first byte of p[from..n) that keeps its
 * line from being read as one whitespace-separated token, or n.  That is a separator
 * (bytes.split()'s whitespace) that is not the line's final b"\n" or one final b"\r",
 * and a separator that starts a line (an empty line, or "\r" alone).  from must start
 * a line (0, or right after a b"\n"); *newlines grows by the b"\n" bytes before the
 * byte returned.  64 bytes at a time: three masks, no branch per byte. */
static inline int64_t sashite_next_line_fault(const unsigned char *p, int64_t n, int64_t from,
                                              int portable, int64_t *newlines) {
    unsigned char block[64];
    int64_t b = from;
    while (b < n) {
        const unsigned char *q = p + b;
        int64_t left = n - b;
        uint64_t sep, nl, cr, ends, starts, fault, valid = ~(uint64_t)0;
        if (left < 64) { /* the last bytes, padded with a byte that separates nothing */
            memset(block, 'A', 64);
            memcpy(block, q, (size_t)left);
            q = block;
            valid = ((uint64_t)1 << left) - 1;
        }
        sashite_line_masks64(q, portable, &sep, &nl, &cr);
        sep &= valid, nl &= valid, cr &= valid;
        /* bit i: the byte after byte i ends the line (a b"\n", or the buffer's end) */
        ends = nl >> 1;
        if (left < 64)
            ends |= (uint64_t)1 << (left - 1);
        else if (left == 64 || p[b + 64] == 10)
            ends |= (uint64_t)1 << 63;
        /* bit i: byte i starts a line */
        starts = (nl << 1) | (uint64_t)(b == 0 || p[b - 1] == 10);
        fault = (sep & ~nl & ~cr) | (cr & ~ends) | (sep & starts);
        if (fault) {
            int at = sashite_ctz64(fault);
            *newlines += sashite_popcount64(nl & (((uint64_t)1 << at) - 1));
            return b + at;
        }
        *newlines += sashite_popcount64(nl);
        b += 64;
    }
    return n;
}

/* Masks of the token characters of p[0..63] (all 64 bytes readable), bit i for byte i:
 * ASCII letters, state modifiers ('+', '-'), terminal markers ('^'), derivation markers
 * ('\'').  For scanning tokens written back to back (the core's scan_many), which checks
 * the order of these classes with bit operations; what they mean is the grammar's, in
 * the core. */
static inline void sashite_token_masks64(const unsigned char *p, uint64_t *letters,
                                         uint64_t *modifiers, uint64_t *carets,
                                         uint64_t *apostrophes) {
#ifdef SASHITE_EPIN_SSE2
    const __m128i case_bit = _mm_set1_epi8(0x20), a = _mm_set1_epi8(0x61),
                  last = _mm_set1_epi8(25), plus = _mm_set1_epi8(0x2B),
                  minus = _mm_set1_epi8(0x2D), caret = _mm_set1_epi8(0x5E),
                  apos = _mm_set1_epi8(0x27);
    uint64_t l = 0, m = 0, c = 0, q = 0;
    int i;
    for (i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        __m128i t = _mm_sub_epi8(_mm_or_si128(v, case_bit), a); /* letters -> 0..25 */
        __m128i letter = _mm_cmpeq_epi8(_mm_min_epu8(t, last), t);
        __m128i modifier = _mm_or_si128(_mm_cmpeq_epi8(v, plus), _mm_cmpeq_epi8(v, minus));
        l |= (uint64_t)(uint16_t)_mm_movemask_epi8(letter) << (16 * i);
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(modifier) << (16 * i);
        c |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, caret)) << (16 * i);
        q |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, apos)) << (16 * i);
    }
    *letters = l, *modifiers = m, *carets = c, *apostrophes = q;
#elif defined(SASHITE_EPIN_NEON)
    uint8x16_t v[4], letter[4], modifier[4], caret[4], apos[4];
    int i;
    for (i = 0; i < 4; i++) {
        v[i] = vld1q_u8(p + 16 * i);
        letter[i] = sashite_neon_letter(v[i]);
        modifier[i] = vorrq_u8(vceqq_u8(v[i], vdupq_n_u8(0x2B)), vceqq_u8(v[i], vdupq_n_u8(0x2D)));
        caret[i] = vceqq_u8(v[i], vdupq_n_u8(0x5E));
        apos[i] = vceqq_u8(v[i], vdupq_n_u8(0x27));
    }
    *letters = sashite_neon_mask64(letter[0], letter[1], letter[2], letter[3]);
    *modifiers = sashite_neon_mask64(modifier[0], modifier[1], modifier[2], modifier[3]);
    *carets = sashite_neon_mask64(caret[0], caret[1], caret[2], caret[3]);
    *apostrophes = sashite_neon_mask64(apos[0], apos[1], apos[2], apos[3]);
#else
    uint64_t l = 0, m = 0, c = 0, q = 0;
    int i;
    for (i = 0; i < 64; i++) {
        unsigned char b = p[i];
        l |= (uint64_t)((unsigned char)((b | 0x20) - 0x61) < 26) << i;
        m |= (uint64_t)(b == 0x2B || b == 0x2D) << i;
        c |= (uint64_t)(b == 0x5E) << i;
        q |= (uint64_t)(b == 0x27) << i;
    }
    *letters = l, *modifiers = m, *carets = c, *apostrophes = q;
#endif
}

#endif
