/* The Arrow export's fields (_export_c.pxi) from a TokenArray's 5-byte records
 * (letter, side, state, terminal, derived), 16 records at a time with the AVX2 kernel.
 *
 * The scalar loops write each field in a pass of its own, and each token's bytes at
 * an offset that waits on the token before it.  Here one pass writes every field of
 * 16 records from five loads:
 *   - the records are dealt into one vector per field (25 byte shuffles);
 *   - abbr, side and state are stored as they are (the abbr's index by one saturating
 *     subtraction, 0 for a record marked invalid, as the scalar loop writes);
 *   - terminal and derived become 16 bits each (movemask);
 *   - each token's length and bytes come from its shape (state, terminal, derived: 12
 *     shapes), looked up in tables built from the core's own formatter
 *     (sashite_export_build_tables), so the grammar of a token's text stays there;
 *   - the offsets are a prefix sum of the lengths, so no token waits on another;
 *   - the bytes of four tokens at a time are packed together by one shuffle chosen by
 *     their four lengths, and stored at the first one's offset (simdjson and simdutf
 *     compress bytes the same way).
 * The 16-byte store of the last four tokens of a block reaches at most 16 bytes past
 * their offset, inside the 4 bytes a token that the token buffer has room for; the
 * next four overwrite what lies past their own start.  A block with a record marked
 * invalid (length 0) stores its tokens one by one instead.
 *
 * The other kernels run the scalar loops alone; so does the AVX2 kernel for the last
 * n % 16 records. */
#ifndef SASHITE_EPIN_EXPORT_FIELDS_H
#define SASHITE_EPIN_EXPORT_FIELDS_H

#include <stdint.h>
#include <string.h>

#include "_kernels.h"

/* A record's shape: state * 4 + terminal * 2 + derived (0..11). */
#define SASHITE_SHAPES 16

#ifdef SASHITE_EPIN_AVX2

static unsigned char sashite_shape_bytes[4][SASHITE_SHAPES]; /* byte k of the token */
static unsigned char sashite_shape_letter[2][SASHITE_SHAPES]; /* 0xFF: the letter is byte k */
static unsigned char sashite_shape_length[SASHITE_SHAPES];
static unsigned char sashite_deal[5][5][16]; /* [field][vector]: pshufb to the field's lanes */
static unsigned char sashite_pack_4[256][16]; /* four tokens' bytes to the front */

/* token[s] / length[s]: the token of shape s written with the letter 'A' (first side),
 * as the core formats it; length 0 for a shape no token has. */
static void sashite_export_build_tables(const unsigned char token[SASHITE_SHAPES][4],
                                        const unsigned char length[SASHITE_SHAPES]) {
    int s, k, f, v, j, idx, at;
    memset(sashite_shape_bytes, 0, sizeof sashite_shape_bytes);
    memset(sashite_shape_letter, 0, sizeof sashite_shape_letter);
    for (s = 0; s < SASHITE_SHAPES; s++) {
        sashite_shape_length[s] = length[s];
        for (k = 0; k < length[s]; k++) {
            if (token[s][k] == 'A' && k < 2) sashite_shape_letter[k][s] = 0xFF;
            else sashite_shape_bytes[k][s] = token[s][k];
        }
    }
    for (f = 0; f < 5; f++)
        for (v = 0; v < 5; v++)
            for (j = 0; j < 16; j++) {
                int at_byte = 5 * j + f - 16 * v;
                sashite_deal[f][v][j] = (unsigned char)(at_byte >= 0 && at_byte < 16 ? at_byte : 0x80);
            }
    /* idx: bit j is bit 0 of token j's length - 1, bit j + 4 its bit 1 */
    for (idx = 0; idx < 256; idx++) {
        memset(sashite_pack_4[idx], 0x80, 16);
        for (j = 0, at = 0; j < 4; j++) {
            int n = 1 + (idx >> j & 1) + 2 * (idx >> (j + 4) & 1);
            for (k = 0; k < n; k++) sashite_pack_4[idx][at++] = (unsigned char)(4 * j + k);
        }
    }
}

SASHITE_AVX2_TARGET
static inline __m128i sashite_field16(const __m128i v[5], int f) {
    __m128i out = _mm_shuffle_epi8(v[0], _mm_loadu_si128((const __m128i *)sashite_deal[f][0]));
    int k;
    for (k = 1; k < 5; k++)
        out = _mm_or_si128(out, _mm_shuffle_epi8(v[k], _mm_loadu_si128((const __m128i *)sashite_deal[f][k])));
    return out;
}

/* Records 0 .. 16 * (n / 16) - 1: their offsets (from *at, which is advanced), token
 * bytes, abbr indexes, sides, states, and terminal / derived bits (bitmaps from bit 0).
 * Returns how many records it wrote; the caller writes the rest. */
SASHITE_AVX2_TARGET
static int64_t sashite_export_fields_avx2(const unsigned char *r, int64_t n, int32_t *offsets,
                                          unsigned char *data, int32_t *at, int8_t *abbr,
                                          int8_t *side, int8_t *state, uint8_t *terminal,
                                          uint8_t *derived) {
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1),
                  a = _mm_set1_epi8('A');
    const __m128i bytes0 = _mm_loadu_si128((const __m128i *)sashite_shape_bytes[0]),
                  bytes1 = _mm_loadu_si128((const __m128i *)sashite_shape_bytes[1]),
                  bytes2 = _mm_loadu_si128((const __m128i *)sashite_shape_bytes[2]),
                  bytes3 = _mm_loadu_si128((const __m128i *)sashite_shape_bytes[3]),
                  letter0 = _mm_loadu_si128((const __m128i *)sashite_shape_letter[0]),
                  letter1 = _mm_loadu_si128((const __m128i *)sashite_shape_letter[1]),
                  lengths = _mm_loadu_si128((const __m128i *)sashite_shape_length);
    int32_t base = *at;
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16, r += 80) {
        __m128i v[5], fl, fs, fst, ft, fd, shape, len, sums, before, words[4], lo, hi, b0, b1, b2, b3;
        int k, invalid;
        unsigned bit0, bit1;
        for (k = 0; k < 5; k++) v[k] = _mm_loadu_si128((const __m128i *)(r + 16 * k));
        fl = sashite_field16(v, 0);
        fs = sashite_field16(v, 1);
        fst = sashite_field16(v, 2);
        ft = sashite_field16(v, 3);
        fd = sashite_field16(v, 4);
        _mm_storeu_si128((__m128i *)(abbr + i), _mm_subs_epu8(fl, a));
        _mm_storeu_si128((__m128i *)(side + i), fs);
        _mm_storeu_si128((__m128i *)(state + i), fst);
        /* a flag of 0 or 1 shifted to each byte's top bit (a 16-bit shift: the low
         * byte's bit 0 moves into the high byte's bit 0, which movemask does not read) */
        {
            uint16_t t = (uint16_t)_mm_movemask_epi8(_mm_slli_epi16(ft, 7));
            uint16_t d = (uint16_t)_mm_movemask_epi8(_mm_slli_epi16(fd, 7));
            memcpy(terminal + i / 8, &t, 2);
            memcpy(derived + i / 8, &d, 2);
        }
        shape = _mm_add_epi8(_mm_slli_epi16(fst, 2), _mm_add_epi8(_mm_add_epi8(ft, ft), fd));
        invalid = _mm_movemask_epi8(_mm_cmpeq_epi8(fl, zero));
        len = _mm_andnot_si128(_mm_cmpeq_epi8(fl, zero), _mm_shuffle_epi8(lengths, shape));
        /* offsets: the lengths' prefix sum (at most 64: it fits a byte), the token's own
         * length excluded */
        sums = _mm_add_epi8(len, _mm_slli_si128(len, 1));
        sums = _mm_add_epi8(sums, _mm_slli_si128(sums, 2));
        sums = _mm_add_epi8(sums, _mm_slli_si128(sums, 4));
        sums = _mm_add_epi8(sums, _mm_slli_si128(sums, 8));
        before = _mm_slli_si128(sums, 1);
        {
            __m128i b = _mm_set1_epi32(base);
            _mm_storeu_si128((__m128i *)(offsets + i), _mm_add_epi32(b, _mm_cvtepu8_epi32(before)));
            _mm_storeu_si128((__m128i *)(offsets + i + 4),
                             _mm_add_epi32(b, _mm_cvtepu8_epi32(_mm_srli_si128(before, 4))));
            _mm_storeu_si128((__m128i *)(offsets + i + 8),
                             _mm_add_epi32(b, _mm_cvtepu8_epi32(_mm_srli_si128(before, 8))));
            _mm_storeu_si128((__m128i *)(offsets + i + 12),
                             _mm_add_epi32(b, _mm_cvtepu8_epi32(_mm_srli_si128(before, 12))));
        }
        /* the tokens' bytes: the shape's bytes, and the letter as written (its case is
         * the side: bit 5) where the shape puts it */
        {
            __m128i letter = _mm_or_si128(fl, _mm_slli_epi16(fs, 5));
            b0 = _mm_or_si128(_mm_shuffle_epi8(bytes0, shape),
                              _mm_and_si128(letter, _mm_shuffle_epi8(letter0, shape)));
            b1 = _mm_or_si128(_mm_shuffle_epi8(bytes1, shape),
                              _mm_and_si128(letter, _mm_shuffle_epi8(letter1, shape)));
            b2 = _mm_shuffle_epi8(bytes2, shape);
            b3 = _mm_shuffle_epi8(bytes3, shape);
        }
        lo = _mm_unpacklo_epi8(b0, b1);
        hi = _mm_unpackhi_epi8(b0, b1);
        b0 = _mm_unpacklo_epi8(b2, b3);
        b1 = _mm_unpackhi_epi8(b2, b3);
        words[0] = _mm_unpacklo_epi16(lo, b0);
        words[1] = _mm_unpackhi_epi16(lo, b0);
        words[2] = _mm_unpacklo_epi16(hi, b1);
        words[3] = _mm_unpackhi_epi16(hi, b1);
        if (invalid == 0) {
            __m128i minus1 = _mm_sub_epi8(len, one);
            bit0 = (unsigned)_mm_movemask_epi8(_mm_slli_epi16(minus1, 7));
            bit1 = (unsigned)_mm_movemask_epi8(_mm_slli_epi16(minus1, 6));
            for (k = 0; k < 4; k++) {
                unsigned idx = (bit0 >> (4 * k) & 15) | (bit1 >> (4 * k) & 15) << 4;
                __m128i pack = _mm_loadu_si128((const __m128i *)sashite_pack_4[idx]);
                _mm_storeu_si128((__m128i *)(data + offsets[i + 4 * k]),
                                 _mm_shuffle_epi8(words[k], pack));
            }
        } else {
            uint32_t w[16];
            int j;
            for (k = 0; k < 4; k++) _mm_storeu_si128((__m128i *)(w + 4 * k), words[k]);
            for (j = 0; j < 16; j++) memcpy(data + offsets[i + j], &w[j], 4);
        }
        base += _mm_extract_epi8(sums, 15);
    }
    *at = base;
    return i;
}

#else
static void sashite_export_build_tables(const unsigned char token[SASHITE_SHAPES][4],
                                        const unsigned char length[SASHITE_SHAPES]) {
    (void)token, (void)length;
}
static int64_t sashite_export_fields_avx2(const unsigned char *r, int64_t n, int32_t *offsets,
                                          unsigned char *data, int32_t *at, int8_t *abbr,
                                          int8_t *side, int8_t *state, uint8_t *terminal,
                                          uint8_t *derived) {
    (void)r, (void)n, (void)offsets, (void)data, (void)at, (void)abbr, (void)side;
    (void)state, (void)terminal, (void)derived;
    return 0;
}
#endif

#endif
