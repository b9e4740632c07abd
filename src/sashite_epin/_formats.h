/* Tokens written back from a TokenArray's 5-byte records (letter, side, state,
 * terminal, derived), 16 records at a time with the AVX2 kernel: the Arrow export's
 * fields (_export_c.pxi) and the joined bytes of to_bytes (_array_c.pxi).
 *
 * The scalar loops write each token at an offset that waits on the token before it,
 * and the export writes each field in a pass of its own.  Here 16 records are read by
 * five loads:
 *   - the records are dealt into one vector per field (25 byte shuffles);
 *   - each token's length and bytes come from its shape (state, terminal, derived: 12
 *     shapes), looked up in tables built from the core's own formatter
 *     (sashite_shapes_build), so the grammar of a token's text stays there; the letter
 *     is or'd in where the shape puts it, its case (the side) by bit 5;
 *   - the offsets are a prefix sum of the lengths, so no token waits on another;
 *   - the bytes of several tokens are packed together by one shuffle chosen by their
 *     lengths, and stored at the first one's offset (simdjson and simdutf compress
 *     bytes the same way).
 *
 * The other kernels run the scalar loops alone; so does the AVX2 kernel for the last
 * records. */
#ifndef SASHITE_EPIN_FORMATS_H
#define SASHITE_EPIN_FORMATS_H

#include <stdint.h>
#include <string.h>

#include "_kernels.h"

/* A record's shape: state * 4 + terminal * 2 + derived (0..11). */
#define SASHITE_SHAPES 16

/* Each shape's text: its token, then a separator of at most 4 bytes (none for the
 * export). */
typedef struct {
    unsigned char bytes[8][SASHITE_SHAPES];  /* byte k of the text, the letter's left 0 */
    unsigned char letter[2][SASHITE_SHAPES]; /* 0xFF where byte k is the letter */
    unsigned char length[SASHITE_SHAPES];    /* 0 for a shape no token has */
} sashite_shapes;

/* token[s] / length[s]: the token of shape s written with the letter 'A' (first side),
 * as the core formats it; length 0 for a shape no token has.  sep_len <= 4. */
static void sashite_shapes_build(sashite_shapes *t, const unsigned char token[SASHITE_SHAPES][4],
                                 const unsigned char length[SASHITE_SHAPES],
                                 const unsigned char *sep, int sep_len) {
    int s, k;
    memset(t, 0, sizeof *t);
    for (s = 0; s < SASHITE_SHAPES; s++) {
        if (length[s] == 0) continue;
        t->length[s] = (unsigned char)(length[s] + sep_len);
        for (k = 0; k < length[s]; k++) {
            if (token[s][k] == 'A' && k < 2) t->letter[k][s] = 0xFF;
            else t->bytes[k][s] = token[s][k];
        }
        for (k = 0; k < sep_len; k++) t->bytes[length[s] + k][s] = sep[k];
    }
}

#if defined(SASHITE_EPIN_AVX2) || defined(SASHITE_EPIN_NEON)

static sashite_shapes sashite_export_shapes;
static unsigned char sashite_deal[5][5][16]; /* [field][vector]: pshufb to the field's lanes */
static unsigned char sashite_pack_4[256][16]; /* four 4-byte texts' bytes to the front */
static unsigned char sashite_pack_2[64][16];  /* two 8-byte texts' bytes to the front */

/* The tables every call shares, and the export's shapes (no separator). */
static void sashite_formats_init(const unsigned char token[SASHITE_SHAPES][4],
                                 const unsigned char length[SASHITE_SHAPES]) {
    int f, v, j, k, idx, at;
    sashite_shapes_build(&sashite_export_shapes, token, length, NULL, 0);
    for (f = 0; f < 5; f++)
        for (v = 0; v < 5; v++)
            for (j = 0; j < 16; j++) {
                int at_byte = 5 * j + f - 16 * v;
                sashite_deal[f][v][j] = (unsigned char)(at_byte >= 0 && at_byte < 16 ? at_byte : 0x80);
            }
    /* idx: bit j is bit 0 of text j's length - 1, bit j + 4 its bit 1 */
    for (idx = 0; idx < 256; idx++) {
        memset(sashite_pack_4[idx], 0x80, 16);
        for (j = 0, at = 0; j < 4; j++) {
            int n = 1 + (idx >> j & 1) + 2 * (idx >> (j + 4) & 1);
            for (k = 0; k < n; k++) sashite_pack_4[idx][at++] = (unsigned char)(4 * j + k);
        }
    }
    /* idx: the first text's length - 1, then the second's times 8 */
    for (idx = 0; idx < 64; idx++) {
        memset(sashite_pack_2[idx], 0x80, 16);
        for (j = 0, at = 0; j < 2; j++) {
            int n = 1 + (idx >> (3 * j) & 7);
            for (k = 0; k < n; k++) sashite_pack_2[idx][at++] = (unsigned char)(8 * j + k);
        }
    }
}

#endif

#ifdef SASHITE_EPIN_AVX2
SASHITE_AVX2_TARGET
static inline __m128i sashite_field16(const __m128i v[5], int f) {
    __m128i out = _mm_shuffle_epi8(v[0], _mm_loadu_si128((const __m128i *)sashite_deal[f][0]));
    int k;
    for (k = 1; k < 5; k++)
        out = _mm_or_si128(out, _mm_shuffle_epi8(v[k], _mm_loadu_si128((const __m128i *)sashite_deal[f][k])));
    return out;
}

/* The 16 records at r, one vector per field. */
SASHITE_AVX2_TARGET
static inline void sashite_deal16(const unsigned char *r, __m128i field[5]) {
    __m128i v[5];
    int k;
    for (k = 0; k < 5; k++) v[k] = _mm_loadu_si128((const __m128i *)(r + 16 * k));
    for (k = 0; k < 5; k++) field[k] = sashite_field16(v, k);
}

/* Byte k of each of 16 texts (k < 2: the letter, where the shape puts it). */
SASHITE_AVX2_TARGET
static inline __m128i sashite_text_byte(const sashite_shapes *t, int k, __m128i shape,
                                        __m128i letter) {
    __m128i b = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->bytes[k]), shape);
    if (k < 2)
        b = _mm_or_si128(b, _mm_and_si128(letter, _mm_shuffle_epi8(
                                _mm_loadu_si128((const __m128i *)t->letter[k]), shape)));
    return b;
}

/* Lane j: the sum of lengths 0 .. j (at most 16 * 8: it fits a byte). */
SASHITE_AVX2_TARGET
static inline __m128i sashite_prefix_sum(__m128i len) {
    __m128i sums = _mm_add_epi8(len, _mm_slli_si128(len, 1));
    sums = _mm_add_epi8(sums, _mm_slli_si128(sums, 2));
    sums = _mm_add_epi8(sums, _mm_slli_si128(sums, 4));
    return _mm_add_epi8(sums, _mm_slli_si128(sums, 8));
}

/* The export's fields of records 0 .. 16 * (n / 16) - 1: their offsets (from *at,
 * which is advanced), token bytes, abbr indexes (0 for a record marked invalid, as
 * the scalar loop writes), sides, states, and terminal / derived bits (bitmaps from
 * bit 0).  The 16-byte store of a block's last four tokens reaches at most 16 bytes
 * past their offset, inside the 4 bytes a token the token buffer has room for; the
 * next four overwrite what lies past their own start.  A block with a record marked
 * invalid (length 0) stores its tokens one by one instead.  Returns how many records
 * it wrote; the caller writes the rest. */
SASHITE_AVX2_TARGET
static int64_t sashite_export_fields_avx2(const unsigned char *r, int64_t n, int32_t *offsets,
                                          unsigned char *data, int32_t *at, int8_t *abbr,
                                          int8_t *side, int8_t *state, uint8_t *terminal,
                                          uint8_t *derived) {
    const sashite_shapes *t = &sashite_export_shapes;
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1),
                  a = _mm_set1_epi8('A');
    const __m128i lengths = _mm_loadu_si128((const __m128i *)t->length);
    int32_t base = *at;
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16, r += 80) {
        __m128i field[5], shape, len, sums, before, letter, words[4], lo, hi, b0, b1, b2, b3;
        int k, invalid;
        unsigned bit0, bit1;
        sashite_deal16(r, field);
        _mm_storeu_si128((__m128i *)(abbr + i), _mm_subs_epu8(field[0], a));
        _mm_storeu_si128((__m128i *)(side + i), field[1]);
        _mm_storeu_si128((__m128i *)(state + i), field[2]);
        /* a flag of 0 or 1 shifted to each byte's top bit (a 16-bit shift: the low
         * byte's bit 0 moves into the high byte's bit 0, which movemask does not read) */
        {
            uint16_t tb = (uint16_t)_mm_movemask_epi8(_mm_slli_epi16(field[3], 7));
            uint16_t db = (uint16_t)_mm_movemask_epi8(_mm_slli_epi16(field[4], 7));
            memcpy(terminal + i / 8, &tb, 2);
            memcpy(derived + i / 8, &db, 2);
        }
        shape = _mm_add_epi8(_mm_slli_epi16(field[2], 2),
                             _mm_add_epi8(_mm_add_epi8(field[3], field[3]), field[4]));
        invalid = _mm_movemask_epi8(_mm_cmpeq_epi8(field[0], zero));
        len = _mm_andnot_si128(_mm_cmpeq_epi8(field[0], zero), _mm_shuffle_epi8(lengths, shape));
        sums = sashite_prefix_sum(len);
        before = _mm_slli_si128(sums, 1); /* the offsets, each token's own length excluded */
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
        letter = _mm_or_si128(field[0], _mm_slli_epi16(field[1], 5));
        b0 = sashite_text_byte(t, 0, shape, letter);
        b1 = sashite_text_byte(t, 1, shape, letter);
        b2 = sashite_text_byte(t, 2, shape, letter);
        b3 = sashite_text_byte(t, 3, shape, letter);
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

/* The tokens of records 0 .. each followed by the separator t was built with, into
 * out, 16 at a time while a block's texts and the 16-byte store past its last pair
 * stay more than 16 bytes before end: so a block never holds the last token (which
 * has no separator).  No record may be marked invalid.  Returns how many tokens it
 * wrote; *out is advanced past them. */
SASHITE_AVX2_TARGET
static int64_t sashite_join_avx2(const unsigned char *r, int64_t n, const sashite_shapes *t,
                                 int sep_len, unsigned char **out, const unsigned char *end) {
    const __m128i lengths = _mm_loadu_si128((const __m128i *)t->length),
                  one = _mm_set1_epi8(1), weights = _mm_set1_epi16(0x0801);
    const int64_t reach = 16 * (4 + sep_len) + 16; /* a block's texts, then one store */
    unsigned char *o = *out;
    int64_t i;
    for (i = 0; i + 16 <= n && end - o > reach; i += 16, r += 80) {
        __m128i field[5], shape, sums, letter, b[8], s[8], q[8], pair;
        /* the offsets (8 bytes each) and pair indexes (4 each) moved out 8 bytes at a time:
         * reading them byte by byte from a copy stored on the stack was 15% slower */
        uint64_t before[2], idx[2];
        int k;
        sashite_deal16(r, field);
        shape = _mm_add_epi8(_mm_slli_epi16(field[2], 2),
                             _mm_add_epi8(_mm_add_epi8(field[3], field[3]), field[4]));
        {
            __m128i len = _mm_shuffle_epi8(lengths, shape), at, pairs;
            sums = sashite_prefix_sum(len);
            at = _mm_slli_si128(sums, 1);
            /* each pair's lengths - 1 as one index: the first's, then the second's * 8 */
            pairs = _mm_maddubs_epi16(_mm_sub_epi8(len, one), weights);
            before[0] = (uint64_t)_mm_cvtsi128_si64(at);
            before[1] = (uint64_t)_mm_extract_epi64(at, 1);
            idx[0] = (uint64_t)_mm_cvtsi128_si64(pairs);
            idx[1] = (uint64_t)_mm_extract_epi64(pairs, 1);
        }
        letter = _mm_or_si128(field[0], _mm_slli_epi16(field[1], 5));
        for (k = 0; k < 8; k++) b[k] = sashite_text_byte(t, k, shape, letter);
        /* transpose: byte k of 16 texts (b[k]) to 8 pairs of whole texts, 8 bytes each */
        for (k = 0; k < 4; k++) {
            s[2 * k] = _mm_unpacklo_epi8(b[2 * k], b[2 * k + 1]);     /* texts 0..7 */
            s[2 * k + 1] = _mm_unpackhi_epi8(b[2 * k], b[2 * k + 1]); /* texts 8..15 */
        }
        for (k = 0; k < 2; k++) { /* bytes 0-3 (k = 0) and 4-7 of texts 0-3, 4-7, 8-11, 12-15 */
            q[4 * k] = _mm_unpacklo_epi16(s[4 * k], s[4 * k + 2]);
            q[4 * k + 1] = _mm_unpackhi_epi16(s[4 * k], s[4 * k + 2]);
            q[4 * k + 2] = _mm_unpacklo_epi16(s[4 * k + 1], s[4 * k + 3]);
            q[4 * k + 3] = _mm_unpackhi_epi16(s[4 * k + 1], s[4 * k + 3]);
        }
        for (k = 0; k < 4; k++) { /* pairs 2k and 2k + 1: texts 4k .. 4k + 3 */
            uint64_t at = before[k >> 1] >> (32 * (k & 1)), which = idx[k >> 1] >> (32 * (k & 1));
            pair = _mm_unpacklo_epi32(q[k], q[4 + k]);
            _mm_storeu_si128((__m128i *)(o + (at & 0xFF)),
                             _mm_shuffle_epi8(pair, _mm_loadu_si128(
                                                        (const __m128i *)sashite_pack_2[which & 63])));
            pair = _mm_unpackhi_epi32(q[k], q[4 + k]);
            _mm_storeu_si128((__m128i *)(o + (at >> 16 & 0xFF)),
                             _mm_shuffle_epi8(pair, _mm_loadu_si128(
                                                        (const __m128i *)sashite_pack_2[which >> 16 & 63])));
        }
        o += _mm_extract_epi8(sums, 15);
    }
    *out = o;
    return i;
}

/* The seven byte columns of records 0 .. 16 * (n / 16) - 1 that polars' frame is
 * built from (TokenArray._frame_fields): column k of entry i at out[k * stride + i]:
 * the letter (0 where invalid), side + 2 and state + 3 where invalid (a record marked
 * invalid is 0), terminal, derived, valid and invalid.  Sixteen entries a store per
 * column, where a byte store per entry and column was store-bound (2 ns an entry).
 * Returns how many records it wrote; the caller writes the rest. */
SASHITE_AVX2_TARGET
static int64_t sashite_frame_fields_avx2(const unsigned char *r, int64_t n, unsigned char *out,
                                         int64_t stride) {
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1),
                  two = _mm_set1_epi8(2), three = _mm_set1_epi8(3);
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16, r += 80) {
        __m128i field[5], blank;
        sashite_deal16(r, field);
        blank = _mm_cmpeq_epi8(field[0], zero); /* 0xFF where invalid */
        _mm_storeu_si128((__m128i *)(out + i), field[0]);
        _mm_storeu_si128((__m128i *)(out + stride + i),
                         _mm_add_epi8(field[1], _mm_and_si128(blank, two)));
        _mm_storeu_si128((__m128i *)(out + 2 * stride + i),
                         _mm_add_epi8(field[2], _mm_and_si128(blank, three)));
        _mm_storeu_si128((__m128i *)(out + 3 * stride + i), field[3]);
        _mm_storeu_si128((__m128i *)(out + 4 * stride + i), field[4]);
        _mm_storeu_si128((__m128i *)(out + 5 * stride + i), _mm_andnot_si128(blank, one));
        _mm_storeu_si128((__m128i *)(out + 6 * stride + i), _mm_and_si128(blank, one));
    }
    return i;
}

#else
static int64_t sashite_export_fields_avx2(const unsigned char *r, int64_t n, int32_t *offsets,
                                          unsigned char *data, int32_t *at, int8_t *abbr,
                                          int8_t *side, int8_t *state, uint8_t *terminal,
                                          uint8_t *derived) {
    (void)r, (void)n, (void)offsets, (void)data, (void)at, (void)abbr, (void)side;
    (void)state, (void)terminal, (void)derived;
    return 0;
}
static int64_t sashite_join_avx2(const unsigned char *r, int64_t n, const sashite_shapes *t,
                                 int sep_len, unsigned char **out, const unsigned char *end) {
    (void)r, (void)n, (void)t, (void)sep_len, (void)out, (void)end;
    return 0;
}
static int64_t sashite_frame_fields_avx2(const unsigned char *r, int64_t n, unsigned char *out,
                                         int64_t stride) {
    (void)r, (void)n, (void)out, (void)stride;
    return 0;
}
#endif

#if !defined(SASHITE_EPIN_AVX2) && !defined(SASHITE_EPIN_NEON)
static void sashite_formats_init(const unsigned char token[SASHITE_SHAPES][4],
                                 const unsigned char length[SASHITE_SHAPES]) {
    (void)token, (void)length;
}
#endif

#ifdef SASHITE_EPIN_NEON
/* The AVX2 loops above on NEON, instruction for instruction where NEON has one:
 * vqtbl1q for pshufb (an index of 16 or more gives 0, as 0x80 does there), vext with
 * zero for the byte shifts, vzip for the unpacks; movemask, which NEON lacks, by
 * weighting each 0/1 byte with its bit and adding each half across. */

/* Bit j of the result: bit 0 of byte j of x (each byte 0 or 1). */
static inline unsigned sashite_neon_bits16(uint8x16_t x) {
    static const uint8_t weight[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t w = vmulq_u8(vandq_u8(x, vdupq_n_u8(1)), vld1q_u8(weight));
    return (unsigned)vaddv_u8(vget_low_u8(w)) | (unsigned)vaddv_u8(vget_high_u8(w)) << 8;
}

static inline uint8x16_t sashite_field16_neon(const uint8x16_t v[5], int f) {
    uint8x16_t out = vqtbl1q_u8(v[0], vld1q_u8(sashite_deal[f][0]));
    int k;
    for (k = 1; k < 5; k++)
        out = vorrq_u8(out, vqtbl1q_u8(v[k], vld1q_u8(sashite_deal[f][k])));
    return out;
}

static inline void sashite_deal16_neon(const unsigned char *r, uint8x16_t field[5]) {
    uint8x16_t v[5];
    int k;
    for (k = 0; k < 5; k++) v[k] = vld1q_u8(r + 16 * k);
    for (k = 0; k < 5; k++) field[k] = sashite_field16_neon(v, k);
}

static inline uint8x16_t sashite_text_byte_neon(const sashite_shapes *t, int k, uint8x16_t shape,
                                                uint8x16_t letter) {
    uint8x16_t b = vqtbl1q_u8(vld1q_u8(t->bytes[k]), shape);
    if (k < 2)
        b = vorrq_u8(b, vandq_u8(letter, vqtbl1q_u8(vld1q_u8(t->letter[k]), shape)));
    return b;
}

/* x shifted up by n bytes (toward lane 15), zeros in: _mm_slli_si128. */
#define SASHITE_NEON_UP(X, N) vextq_u8(vdupq_n_u8(0), (X), 16 - (N))

static inline uint8x16_t sashite_prefix_sum_neon(uint8x16_t len) {
    uint8x16_t sums = vaddq_u8(len, SASHITE_NEON_UP(len, 1));
    sums = vaddq_u8(sums, SASHITE_NEON_UP(sums, 2));
    sums = vaddq_u8(sums, SASHITE_NEON_UP(sums, 4));
    return vaddq_u8(sums, SASHITE_NEON_UP(sums, 8));
}

static inline uint8x16_t sashite_shape_neon(const uint8x16_t field[5]) {
    return vaddq_u8(vshlq_n_u8(field[2], 2),
                    vaddq_u8(vaddq_u8(field[3], field[3]), field[4]));
}

/* As sashite_export_fields_avx2. */
static int64_t sashite_export_fields_neon(const unsigned char *r, int64_t n, int32_t *offsets,
                                          unsigned char *data, int32_t *at, int8_t *abbr,
                                          int8_t *side, int8_t *state, uint8_t *terminal,
                                          uint8_t *derived) {
    const sashite_shapes *t = &sashite_export_shapes;
    const uint8x16_t zero = vdupq_n_u8(0), one = vdupq_n_u8(1), a = vdupq_n_u8('A');
    const uint8x16_t lengths = vld1q_u8(t->length);
    int32_t base = *at;
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16, r += 80) {
        uint8x16_t field[5], shape, len, sums, before, letter, b0, b1, b2, b3, lo, hi,
            words[4], empty;
        uint16x8_t wide;
        int32x4_t b = vdupq_n_s32(base);
        int k;
        unsigned bit0, bit1;
        uint16_t tb, db;
        sashite_deal16_neon(r, field);
        vst1q_u8((uint8_t *)(abbr + i), vqsubq_u8(field[0], a));
        vst1q_u8((uint8_t *)(side + i), field[1]);
        vst1q_u8((uint8_t *)(state + i), field[2]);
        tb = (uint16_t)sashite_neon_bits16(field[3]);
        db = (uint16_t)sashite_neon_bits16(field[4]);
        memcpy(terminal + i / 8, &tb, 2);
        memcpy(derived + i / 8, &db, 2);
        shape = sashite_shape_neon(field);
        empty = vceqq_u8(field[0], zero);
        len = vbicq_u8(vqtbl1q_u8(lengths, shape), empty);
        sums = sashite_prefix_sum_neon(len);
        before = SASHITE_NEON_UP(sums, 1); /* the offsets, each token's own length excluded */
        wide = vmovl_u8(vget_low_u8(before));
        vst1q_s32(offsets + i, vaddq_s32(b, vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(wide)))));
        vst1q_s32(offsets + i + 4,
                  vaddq_s32(b, vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(wide)))));
        wide = vmovl_u8(vget_high_u8(before));
        vst1q_s32(offsets + i + 8,
                  vaddq_s32(b, vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(wide)))));
        vst1q_s32(offsets + i + 12,
                  vaddq_s32(b, vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(wide)))));
        letter = vorrq_u8(field[0], vshlq_n_u8(field[1], 5));
        b0 = sashite_text_byte_neon(t, 0, shape, letter);
        b1 = sashite_text_byte_neon(t, 1, shape, letter);
        b2 = sashite_text_byte_neon(t, 2, shape, letter);
        b3 = sashite_text_byte_neon(t, 3, shape, letter);
        lo = vzip1q_u8(b0, b1);
        hi = vzip2q_u8(b0, b1);
        b0 = vzip1q_u8(b2, b3);
        b1 = vzip2q_u8(b2, b3);
        words[0] = vreinterpretq_u8_u16(vzip1q_u16(vreinterpretq_u16_u8(lo), vreinterpretq_u16_u8(b0)));
        words[1] = vreinterpretq_u8_u16(vzip2q_u16(vreinterpretq_u16_u8(lo), vreinterpretq_u16_u8(b0)));
        words[2] = vreinterpretq_u8_u16(vzip1q_u16(vreinterpretq_u16_u8(hi), vreinterpretq_u16_u8(b1)));
        words[3] = vreinterpretq_u8_u16(vzip2q_u16(vreinterpretq_u16_u8(hi), vreinterpretq_u16_u8(b1)));
        if (vmaxvq_u8(empty) == 0) {
            uint8x16_t minus1 = vsubq_u8(len, one);
            bit0 = sashite_neon_bits16(minus1);
            bit1 = sashite_neon_bits16(vshrq_n_u8(minus1, 1));
            for (k = 0; k < 4; k++) {
                unsigned idx = (bit0 >> (4 * k) & 15) | (bit1 >> (4 * k) & 15) << 4;
                vst1q_u8(data + offsets[i + 4 * k],
                         vqtbl1q_u8(words[k], vld1q_u8(sashite_pack_4[idx])));
            }
        } else {
            uint32_t w[16];
            int j;
            for (k = 0; k < 4; k++) vst1q_u8((uint8_t *)(w + 4 * k), words[k]);
            for (j = 0; j < 16; j++) memcpy(data + offsets[i + j], &w[j], 4);
        }
        base += vgetq_lane_u8(sums, 15);
    }
    *at = base;
    return i;
}

/* As sashite_join_avx2. */
static int64_t sashite_join_neon(const unsigned char *r, int64_t n, const sashite_shapes *t,
                                 int sep_len, unsigned char **out, const unsigned char *end) {
    const uint8x16_t lengths = vld1q_u8(t->length), one = vdupq_n_u8(1);
    const int64_t reach = 16 * (4 + sep_len) + 16; /* a block's texts, then one store */
    unsigned char *o = *out;
    int64_t i;
    for (i = 0; i + 16 <= n && end - o > reach; i += 16, r += 80) {
        uint8x16_t field[5], shape, sums, letter, b[8], s[8], q[8], pair, len, at;
        uint16x8_t minus1;
        uint64_t before[2], idx[2];
        int k;
        sashite_deal16_neon(r, field);
        shape = sashite_shape_neon(field);
        len = vqtbl1q_u8(lengths, shape);
        sums = sashite_prefix_sum_neon(len);
        at = SASHITE_NEON_UP(sums, 1);
        /* each pair's lengths - 1 as one index: the first's, then the second's * 8 */
        minus1 = vreinterpretq_u16_u8(vsubq_u8(len, one));
        minus1 = vaddq_u16(vandq_u16(minus1, vdupq_n_u16(0xFF)), vshlq_n_u16(vshrq_n_u16(minus1, 8), 3));
        before[0] = vgetq_lane_u64(vreinterpretq_u64_u8(at), 0);
        before[1] = vgetq_lane_u64(vreinterpretq_u64_u8(at), 1);
        idx[0] = vgetq_lane_u64(vreinterpretq_u64_u16(minus1), 0);
        idx[1] = vgetq_lane_u64(vreinterpretq_u64_u16(minus1), 1);
        letter = vorrq_u8(field[0], vshlq_n_u8(field[1], 5));
        for (k = 0; k < 8; k++) b[k] = sashite_text_byte_neon(t, k, shape, letter);
        for (k = 0; k < 4; k++) {
            s[2 * k] = vzip1q_u8(b[2 * k], b[2 * k + 1]);
            s[2 * k + 1] = vzip2q_u8(b[2 * k], b[2 * k + 1]);
        }
        for (k = 0; k < 2; k++) {
            uint16x8_t x0 = vreinterpretq_u16_u8(s[4 * k]), x1 = vreinterpretq_u16_u8(s[4 * k + 1]),
                       x2 = vreinterpretq_u16_u8(s[4 * k + 2]), x3 = vreinterpretq_u16_u8(s[4 * k + 3]);
            q[4 * k] = vreinterpretq_u8_u16(vzip1q_u16(x0, x2));
            q[4 * k + 1] = vreinterpretq_u8_u16(vzip2q_u16(x0, x2));
            q[4 * k + 2] = vreinterpretq_u8_u16(vzip1q_u16(x1, x3));
            q[4 * k + 3] = vreinterpretq_u8_u16(vzip2q_u16(x1, x3));
        }
        for (k = 0; k < 4; k++) {
            uint64_t to = before[k >> 1] >> (32 * (k & 1)), which = idx[k >> 1] >> (32 * (k & 1));
            uint32x4_t lo = vreinterpretq_u32_u8(q[k]), hi = vreinterpretq_u32_u8(q[4 + k]);
            pair = vreinterpretq_u8_u32(vzip1q_u32(lo, hi));
            vst1q_u8(o + (to & 0xFF), vqtbl1q_u8(pair, vld1q_u8(sashite_pack_2[which & 63])));
            pair = vreinterpretq_u8_u32(vzip2q_u32(lo, hi));
            vst1q_u8(o + (to >> 16 & 0xFF),
                     vqtbl1q_u8(pair, vld1q_u8(sashite_pack_2[which >> 16 & 63])));
        }
        o += vgetq_lane_u8(sums, 15);
    }
    *out = o;
    return i;
}
#undef SASHITE_NEON_UP
#endif

/* The loops of a kernel: how many records they wrote (0 under a kernel without them;
 * the caller's scalar loops write the rest). */
static inline int64_t sashite_export_fields_lanes(int kernel, const unsigned char *r, int64_t n,
                                                  int32_t *offsets, unsigned char *data,
                                                  int32_t *at, int8_t *abbr, int8_t *side,
                                                  int8_t *state, uint8_t *terminal,
                                                  uint8_t *derived) {
    if (sashite_kernel_avx2_loops(kernel))
        return sashite_export_fields_avx2(r, n, offsets, data, at, abbr, side, state, terminal,
                                          derived);
#ifdef SASHITE_EPIN_NEON
    if (kernel == SASHITE_KERNEL_NEON)
        return sashite_export_fields_neon(r, n, offsets, data, at, abbr, side, state, terminal,
                                          derived);
#endif
    return 0;
}

static inline int64_t sashite_join_lanes(int kernel, const unsigned char *r, int64_t n,
                                         const sashite_shapes *t, int sep_len,
                                         unsigned char **out, const unsigned char *end) {
    if (sashite_kernel_avx2_loops(kernel))
        return sashite_join_avx2(r, n, t, sep_len, out, end);
#ifdef SASHITE_EPIN_NEON
    if (kernel == SASHITE_KERNEL_NEON)
        return sashite_join_neon(r, n, t, sep_len, out, end);
#endif
    return 0;
}

/* sashite_frame_fields_avx2 where the kernel has its loops: how many records it wrote
 * (0 under another kernel; the caller's scalar loop writes the rest). */
static inline int64_t sashite_frame_fields_lanes(int kernel, const unsigned char *r, int64_t n,
                                                 unsigned char *out, int64_t stride) {
    if (sashite_kernel_avx2_loops(kernel))
        return sashite_frame_fields_avx2(r, n, out, stride);
    return 0;
}

#endif
