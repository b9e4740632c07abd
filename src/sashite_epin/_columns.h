/* Arrow string columns (_arrow_c.pxi), eight entries at a time with AVX2, AVX-512 or NEON:
 * utf8 and large_utf8 through their offsets, string_view through its 16-byte views.
 *
 * An entry's bytes are not scanned: its length and its first 4 bytes (a scalar load
 * where its offset points, or the view's inline bytes) go into two vectors, and
 * sashite_key_record's rule (_kernels.h) runs on all eight lanes at once.  A gather in
 * place of the scalar loads was slower on both CPUs measured: a third on Zen 1, 3-5%
 * on a Xeon (Emerald Rapids).  So
 * each entry is checked against its own length, as the exact loop checks it, and no
 * entry waits on another.
 *
 * A group of eight is written only when all eight are tokens, inside the bounds the
 * exact loop checks (an offset at least 0, 4 bytes readable before the offsets' end,
 * a length of 1-4), and not null.  Otherwise the function returns at that group's
 * first entry and the exact loop reads the group, which decides, reports and marks.
 * No byte is read before an entry's own bounds are checked.
 *
 * Each offset is read from the column once, into the loader's own copy, and what is
 * checked is that copy, which is what is used: the offsets may be rewritten while they
 * are read (another thread, or another process writing a shared or mapped buffer),
 * and an offset read again after its check could lie anywhere.  What a reader then
 * returns is meaningless, but it reads nothing the last offset (read once, when the
 * column is opened) does not bound.
 *
 * The AVX-512 readers run the same loop with their bounds checked by compares into
 * masks and their records written eight at a time by the bytes kernel's gather.
 * SSE2 has no per-lane shifts, which the rule needs: its kernel, like the portable
 * one, is the exact loop alone. */
#ifndef SASHITE_EPIN_COLUMNS_H
#define SASHITE_EPIN_COLUMNS_H

#include "_kernels.h"

/* Whether the 8 entries from bit j of a validity bitmap are all valid (bits NULL: no
 * nulls).  The second byte is read only when the 8 bits reach into it. */
static inline int sashite_valid8(const uint8_t *bits, int64_t j)
{
    unsigned v;
    if (bits == NULL)
        return 1;
    v = bits[j >> 3] >> (j & 7);
    if (j & 7)
        v |= (unsigned)bits[(j >> 3) + 1] << (8 - (j & 7));
    return (v & 0xFF) == 0xFF;
}

/* The 8 validity bits from bit j (0xFF where bits is NULL: no nulls). */
static inline unsigned sashite_bits8(const uint8_t *bits, int64_t j)
{
    unsigned v;
    if (bits == NULL)
        return 0xFF;
    v = bits[j >> 3] >> (j & 7);
    if (j & 7)
        v |= (unsigned)bits[(j >> 3) + 1] << (8 - (j & 7));
    return v & 0xFF;
}

/* After a group loader copies the offsets it read: an empty asm that may have written
 * the copy, so the compiler keeps reading the copy and never reads the column again in
 * its place (which it may, for a copy of memory nothing it sees writes). */
#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_STORED(AT) __asm__("" : "+m"(AT))
#else
#define SASHITE_STORED(AT) ((void)0)
#endif

#ifdef SASHITE_EPIN_AVX2

/* The words' addresses are the starts the group loader checked, taken from its own
 * copy, never read again from the column: another thread (or another process writing
 * a shared or mapped buffer) may rewrite the offsets between the check and the loads,
 * and an offset read again could point anywhere.  The checked vector's lanes reach the
 * general registers by 64-bit extracts (utf8's split there in two) or, for large_utf8,
 * by a store to the stack that the eight loads are forwarded from; SASHITE_STORED keeps
 * those loads (GCC would see through the store and extract each lane on the vector
 * ports this loop is bound by).  utf8 by a store too, or by GCC's extracts, was some
 * 8 % slower on AVX-512 here; large_utf8 by extracts, some 10 % under AVX2. */
SASHITE_AVX2_TARGET
static inline void sashite_starts32(__m256i s, int64_t *at)
{
    __m128i lo = _mm256_castsi256_si128(s), hi = _mm256_extracti128_si256(s, 1);
    uint64_t q0 = (uint64_t)_mm_cvtsi128_si64(lo), q1 = (uint64_t)_mm_extract_epi64(lo, 1);
    uint64_t q2 = (uint64_t)_mm_cvtsi128_si64(hi), q3 = (uint64_t)_mm_extract_epi64(hi, 1);
    at[0] = (int32_t)q0, at[1] = (int32_t)(q0 >> 32), at[2] = (int32_t)q1;
    at[3] = (int32_t)(q1 >> 32), at[4] = (int32_t)q2, at[5] = (int32_t)(q2 >> 32);
    at[6] = (int32_t)q3, at[7] = (int32_t)(q3 >> 32);
}

/* The first 4 bytes where each of the 8 checked starts at[0..7] points: scalar loads
 * (a gather was slower, see above). */
#define SASHITE_WORDS8(DATA, AT)                                                           \
    _mm256_setr_epi32(sashite_load32((DATA) + (AT)[0]), sashite_load32((DATA) + (AT)[1]),  \
                      sashite_load32((DATA) + (AT)[2]), sashite_load32((DATA) + (AT)[3]),  \
                      sashite_load32((DATA) + (AT)[4]), sashite_load32((DATA) + (AT)[5]),  \
                      sashite_load32((DATA) + (AT)[6]), sashite_load32((DATA) + (AT)[7]))

/* Group loaders: the lengths and first 4 bytes of the 8 entries from o (or v), or 0
 * when one lies outside what the exact loop would read: a start s must have
 * 0 <= s < end - 3 (so 4 bytes are readable) before anything is read there.  Each of
 * the group's 9 offsets is read from the column once: the starts as one vector, whose
 * lanes are what is checked and where the words are loaded, and the stops made from
 * it and the ninth offset (a shuffle and a broadcast load, which cost nothing
 * measurable against reading offsets 1-8 again). */
SASHITE_AVX2_TARGET
static inline int sashite_group32_avx2(const unsigned char *data, const int32_t *o, __m256i limit,
                                  __m256i *n, __m256i *w)
{
    int64_t at[8];
    __m256i s = _mm256_loadu_si256((const __m256i *)o);
    __m256i inside = _mm256_and_si256(_mm256_cmpgt_epi32(s, _mm256_set1_epi32(-1)),
                                      _mm256_cmpgt_epi32(limit, s));
    if (_mm256_movemask_ps(_mm256_castsi256_ps(inside)) != 0xFF)
        return 0;
    sashite_starts32(s, at);
    /* the stops: starts 1-7, then the ninth offset */
    *n = _mm256_sub_epi32(
        _mm256_blend_epi32(_mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7)),
                           _mm256_set1_epi32(o[8]), 0x80),
        s);
    *w = SASHITE_WORDS8(data, at);
    return 1;
}

/* large_utf8: the same in 64 bits.  The lengths are checked (1-4) before they are
 * narrowed to 32 bits, where a huge one could pass for a short one. */
SASHITE_AVX2_TARGET
static inline int sashite_group64_avx2(const unsigned char *data, const int64_t *o, __m256i limit,
                                  __m256i *n, __m256i *w)
{
    const __m256i before = _mm256_set1_epi64x(-1), zero = _mm256_setzero_si256(),
                  five = _mm256_set1_epi64x(5), low = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    int64_t at[8];
    __m256i s0 = _mm256_loadu_si256((const __m256i *)o);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(o + 4));
    /* the stops: starts 1-4 and 5-7 then the ninth offset, each half shifted down one
     * offset across its two 128-bit lanes */
    __m256i n0 = _mm256_sub_epi64(
        _mm256_alignr_epi8(_mm256_permute2x128_si256(s0, s1, 0x21), s0, 8), s0);
    __m256i n1 = _mm256_sub_epi64(
        _mm256_alignr_epi8(_mm256_permute2x128_si256(s1, _mm256_set1_epi64x(o[8]), 0x21), s1, 8),
        s1);
    __m256i inside = _mm256_and_si256(
        _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi64(s0, before), _mm256_cmpgt_epi64(limit, s0)),
                         _mm256_and_si256(_mm256_cmpgt_epi64(s1, before), _mm256_cmpgt_epi64(limit, s1))),
        _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi64(n0, zero), _mm256_cmpgt_epi64(five, n0)),
                         _mm256_and_si256(_mm256_cmpgt_epi64(n1, zero), _mm256_cmpgt_epi64(five, n1))));
    if (_mm256_movemask_pd(_mm256_castsi256_pd(inside)) != 0xF)
        return 0;
    _mm256_storeu_si256((__m256i *)at, s0);
    _mm256_storeu_si256((__m256i *)(at + 4), s1);
    SASHITE_STORED(at);
    *n = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(n0, low))),
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(n1, low)), 1);
    *w = SASHITE_WORDS8(data, at);
    return 1;
}

/* large_utf8 under errors="mark": the starts checked as above, but a length outside
 * 1-4 (a null's 0, a longer entry) gives lane length 0, which the rule refuses, not a
 * stop: the group is read on and that lane marked. */
SASHITE_AVX2_TARGET
static inline int sashite_group64_marking_avx2(const unsigned char *data, const int64_t *o,
                                               __m256i limit, __m256i *n, __m256i *w)
{
    const __m256i before = _mm256_set1_epi64x(-1), zero = _mm256_setzero_si256(),
                  five = _mm256_set1_epi64x(5), low = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    int64_t at[8];
    __m256i s0 = _mm256_loadu_si256((const __m256i *)o);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(o + 4));
    __m256i n0 = _mm256_sub_epi64(
        _mm256_alignr_epi8(_mm256_permute2x128_si256(s0, s1, 0x21), s0, 8), s0);
    __m256i n1 = _mm256_sub_epi64(
        _mm256_alignr_epi8(_mm256_permute2x128_si256(s1, _mm256_set1_epi64x(o[8]), 0x21), s1, 8),
        s1);
    __m256i inside = _mm256_and_si256(
        _mm256_and_si256(_mm256_cmpgt_epi64(s0, before), _mm256_cmpgt_epi64(limit, s0)),
        _mm256_and_si256(_mm256_cmpgt_epi64(s1, before), _mm256_cmpgt_epi64(limit, s1)));
    if (_mm256_movemask_pd(_mm256_castsi256_pd(inside)) != 0xF)
        return 0;
    n0 = _mm256_and_si256(n0, _mm256_and_si256(_mm256_cmpgt_epi64(n0, zero),
                                               _mm256_cmpgt_epi64(five, n0)));
    n1 = _mm256_and_si256(n1, _mm256_and_si256(_mm256_cmpgt_epi64(n1, zero),
                                               _mm256_cmpgt_epi64(five, n1)));
    _mm256_storeu_si256((__m256i *)at, s0);
    _mm256_storeu_si256((__m256i *)(at + 4), s1);
    SASHITE_STORED(at);
    *n = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(n0, low))),
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(n1, low)), 1);
    *w = SASHITE_WORDS8(data, at);
    return 1;
}

/* string_view: each 16-byte view starts with its length, then (up to 12 bytes) the
 * string itself, so a token's bytes are always inline and nothing is out of bounds. */
SASHITE_AVX2_TARGET
static inline int sashite_group_views_avx2(const unsigned char *v, __m256i *n, __m256i *w)
{
    /* each 128-bit lane of a, b, c, d is one view: length, then its first 4 bytes */
    __m256i a = _mm256_loadu_si256((const __m256i *)v);
    __m256i b = _mm256_loadu_si256((const __m256i *)(v + 32));
    __m256i c = _mm256_loadu_si256((const __m256i *)(v + 64));
    __m256i d = _mm256_loadu_si256((const __m256i *)(v + 96));
    __m256i ab = _mm256_unpacklo_epi32(a, b), cd = _mm256_unpacklo_epi32(c, d);
    /* the lanes now hold views 0 2 4 6 | 1 3 5 7: put them back in order */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    *n = _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(ab, cd), order);
    *w = _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(ab, cd), order);
    return 1;
}

/* utf8 and large_utf8 under AVX-512: the same checks, each a compare into a mask
 * (unsigned, so 0 <= s < limit is one compare), and large_utf8's lengths narrowed by
 * two vpmovqd.  string_view keeps the AVX2 loader.  Like all of the column loop but
 * its writes, they stay in 256-bit registers: on Intel, 512-bit instructions close one
 * of the three vector ports, and this loop is bound by them (512-bit loaders, with the
 * words by gather or the views by one two-register permute, were 5-15% slower). */
SASHITE_AVX512_TARGET
static inline int sashite_group32_avx512(const unsigned char *data, const int32_t *o,
                                         __m256i limit, __m256i *n, __m256i *w)
{
    int64_t at[8];
    __m256i s = _mm256_loadu_si256((const __m256i *)o);
    /* limit >= 0 (the readers see to it): unsigned, s < limit means 0 <= s < limit */
    if (_mm256_cmplt_epu32_mask(s, limit) != 0xFF)
        return 0;
    sashite_starts32(s, at);
    /* the stops: starts 1-7, then the ninth offset (one valignd) */
    *n = _mm256_sub_epi32(_mm256_alignr_epi32(_mm256_set1_epi32(o[8]), s, 1), s);
    *w = SASHITE_WORDS8(data, at);
    return 1;
}

SASHITE_AVX512_TARGET
static inline int sashite_group64_avx512(const unsigned char *data, const int64_t *o,
                                         __m256i limit, __m256i *n, __m256i *w)
{
    const __m256i one = _mm256_set1_epi64x(1), four = _mm256_set1_epi64x(4);
    int64_t at[8];
    __m256i s0 = _mm256_loadu_si256((const __m256i *)o);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(o + 4));
    /* the stops: starts 1-4, then 5-7 and the ninth offset (one valignq each) */
    __m256i n0 = _mm256_sub_epi64(_mm256_alignr_epi64(s1, s0, 1), s0);
    __m256i n1 = _mm256_sub_epi64(_mm256_alignr_epi64(_mm256_set1_epi64x(o[8]), s1, 1), s1);
    /* unsigned, as above; and n - 1 < 4 unsigned means 1 <= n <= 4 */
    __mmask8 inside = _mm256_cmplt_epu64_mask(s0, limit) & _mm256_cmplt_epu64_mask(s1, limit)
                      & _mm256_cmplt_epu64_mask(_mm256_sub_epi64(n0, one), four)
                      & _mm256_cmplt_epu64_mask(_mm256_sub_epi64(n1, one), four);
    if (inside != 0xF)
        return 0;
    _mm256_storeu_si256((__m256i *)at, s0);
    _mm256_storeu_si256((__m256i *)(at + 4), s1);
    SASHITE_STORED(at);
    *n = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvtepi64_epi32(n0)),
                                 _mm256_cvtepi64_epi32(n1), 1);
    *w = SASHITE_WORDS8(data, at);
    return 1;
}

/* The marking readers' rule on eight lanes (SASHITE_MARK8's, kernels/avx2.h): under
 * AVX2 the same; under AVX-512 the refused lanes' positions compressed from an iota and
 * written eight at a time (the sink keeps room for eight past the last mark), with no
 * loop per mark, whose count changed from group to group.  Only the Arrow readers
 * take it: the other readers' marks have no such room. */
#define sashite_mark8_wide_avx2 sashite_mark8_avx2
typedef char sashite_positions_are_int64[sizeof(Py_ssize_t) == 8 ? 1 : -1];

SASHITE_AVX512_TARGET
static inline void sashite_mark8_wide_avx512(__m256i n, __m256i w, int epin,
                                             const sashite_keys8 *k, uint16_t *to,
                                             unsigned valid, Py_ssize_t at, Py_ssize_t *marks,
                                             Py_ssize_t *m)
{
    __m256i index;
    __m256i ok = sashite_rule8_avx2(n, w, epin, &index, k);
    __mmask8 token = (__mmask8)(_mm256_test_epi32_mask(ok, ok) & valid);
    __m512i where = _mm512_add_epi64(_mm512_set1_epi64((long long)at),
                                     _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    _mm512_storeu_si512((void *)(marks + *m),
                        _mm512_maskz_compress_epi64((__mmask8)~token, where));
    *m += 8 - SASHITE_POPCNT64(token);
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx512(_mm256_maskz_mov_epi32(token, index)));
}

/* The readers, one set per x86 kernel (kernels/generic/columns.h). */
#define SASHITE_READERS "columns.h"
#include "kernels/generic/x86_readers.h"
#endif /* SASHITE_EPIN_AVX2 */

#ifdef SASHITE_EPIN_NEON
/* NEON (_kernels.h: the rule on two 4-lane vectors): the same groups, loaded by
 * scalar code into arrays, each start checked before anything is read there.  The 9
 * offsets are copied first and only the copy is read (checked, then used), as the x86
 * loaders do: the column's own offsets may be rewritten meanwhile by another thread. */
static inline int sashite_group32_neon(const unsigned char *data, const int32_t *o,
                                       int64_t limit, uint32_t *n, uint32_t *w)
{
    int32_t at[9];
    int k;
    memcpy(at, o, sizeof at);
    SASHITE_STORED(at);
    for (k = 0; k < 8; k++)
        if (at[k] < 0 || at[k] >= limit)
            return 0;
    for (k = 0; k < 8; k++) {
        n[k] = (uint32_t)at[k + 1] - (uint32_t)at[k]; /* wraps as AVX2's subtraction */
        w[k] = (uint32_t)sashite_load32(data + at[k]);
    }
    return 1;
}

/* large_utf8: the lengths checked (1-4) before they are narrowed to 32 bits. */
static inline int sashite_group64_neon(const unsigned char *data, const int64_t *o,
                                       int64_t limit, uint32_t *n, uint32_t *w)
{
    int64_t at[9];
    int k;
    memcpy(at, o, sizeof at);
    SASHITE_STORED(at);
    for (k = 0; k < 8; k++)
        if (at[k] < 0 || at[k] >= limit || (uint64_t)at[k + 1] - (uint64_t)at[k] - 1 > 3)
            return 0;
    for (k = 0; k < 8; k++) {
        n[k] = (uint32_t)(at[k + 1] - at[k]);
        w[k] = (uint32_t)sashite_load32(data + at[k]);
    }
    return 1;
}

/* string_view: the length, then the inline bytes, of each 16-byte view. */
static inline int sashite_group_views_neon(const unsigned char *v, uint32_t *n, uint32_t *w)
{
    int k;
    for (k = 0; k < 8; k++) {
        n[k] = (uint32_t)sashite_load32(v + 16 * k);
        w[k] = (uint32_t)sashite_load32(v + 16 * k + 4);
    }
    return 1;
}

#define SASHITE_LANES_STATE SASHITE_LANES_STATE_NEON
#define SASHITE_LANES_WRITE sashite_write_scalar
#define SASHITE_GROUP32_NEON(I, N, W)                                                      \
    (sashite_valid8(bits, bit + (I)) && sashite_group32_neon(data, o + (I), limit, N, W))
#define SASHITE_GROUP64_NEON(I, N, W)                                                      \
    (sashite_valid8(bits, bit + (I)) && sashite_group64_neon(data, o + (I), limit, N, W))
#define SASHITE_GROUP_VIEWS_NEON(I, N, W)                                                  \
    (sashite_valid8(bits, bit + (I)) && sashite_group_views_neon(v + 16 * (I), N, W))

static Py_ssize_t sashite_offsets32_neon(const unsigned char *data, const int32_t *o,
                                         Py_ssize_t i, Py_ssize_t count, int64_t end,
                                         const uint8_t *bits, int64_t bit, unsigned char *out,
                                         const uint64_t *records, int epin)
{
    const int64_t limit = end - 3;
    if (end < 3)
        return i;
#define SASHITE_LANES_GROUP(I, TO) \
    (SASHITE_GROUP32_NEON(I, n, w) && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
}

static Py_ssize_t sashite_offsets64_neon(const unsigned char *data, const int64_t *o,
                                         Py_ssize_t i, Py_ssize_t count, int64_t end,
                                         const uint8_t *bits, int64_t bit, unsigned char *out,
                                         const uint64_t *records, int epin)
{
    const int64_t limit = end - 3;
    if (end < 3)
        return i;
#define SASHITE_LANES_GROUP(I, TO) \
    (SASHITE_GROUP64_NEON(I, n, w) && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
}

static Py_ssize_t sashite_views_neon(const unsigned char *v, Py_ssize_t i, Py_ssize_t count,
                                     const uint8_t *bits, int64_t bit, unsigned char *out,
                                     const uint64_t *records, int epin)
{
#define SASHITE_LANES_GROUP(I, TO) \
    (SASHITE_GROUP_VIEWS_NEON(I, n, w) && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
}
#undef SASHITE_GROUP32_NEON
#undef SASHITE_GROUP64_NEON
#undef SASHITE_GROUP_VIEWS_NEON
#include "kernels/generic/undef.h"
#endif /* SASHITE_EPIN_NEON */

/* The column readers of a kernel; i itself for a kernel without lanes (the exact loop
 * then reads every entry).  o: int32 offsets (utf8), or int64 where large (large_utf8). */
static inline Py_ssize_t sashite_offsets_lanes(int kernel, int large, const unsigned char *data,
                                               const void *o, Py_ssize_t i, Py_ssize_t count,
                                               int64_t end, const uint8_t *bits, int64_t bit,
                                               unsigned char *out, const uint64_t *records,
                                               int epin)
{
    const int32_t *o32 = (const int32_t *)o;
    const int64_t *o64 = (const int64_t *)o;
    /* a build without lanes reads none of these */
    (void)data, (void)o32, (void)o64, (void)count, (void)end, (void)bits, (void)bit, (void)out;
    (void)records, (void)epin;
    switch (kernel * 2 + !!large) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512 * 2:
        return sashite_offsets32_avx512(data, o32, i, count, end, bits, bit, out, records, epin);
    case SASHITE_KERNEL_AVX512 * 2 + 1:
        return sashite_offsets64_avx512(data, o64, i, count, end, bits, bit, out, records, epin);
    case SASHITE_KERNEL_AVX2 * 2:
        return sashite_offsets32_avx2(data, o32, i, count, end, bits, bit, out, records, epin);
    case SASHITE_KERNEL_AVX2 * 2 + 1:
        return sashite_offsets64_avx2(data, o64, i, count, end, bits, bit, out, records, epin);
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON * 2:
        return sashite_offsets32_neon(data, o32, i, count, end, bits, bit, out, records, epin);
    case SASHITE_KERNEL_NEON * 2 + 1:
        return sashite_offsets64_neon(data, o64, i, count, end, bits, bit, out, records, epin);
#endif
    default:
        return i;
    }
}

/* The same under errors="mark" (x86 kernels; i itself under any other): a group of
 * eight with a null or an entry that is no token is written (the zero record there)
 * and read on, each such entry's position appended to marks[*m ..] (room for
 * count - i more); only a group whose offsets leave the buffer stops them. */
static inline Py_ssize_t sashite_offsets_lanes_marking(
    int kernel, int large, const unsigned char *data, const void *o, Py_ssize_t i,
    Py_ssize_t count, int64_t end, const uint8_t *bits, int64_t bit, unsigned char *out,
    const uint64_t *records, int epin, Py_ssize_t *marks, Py_ssize_t *m)
{
    const int32_t *o32 = (const int32_t *)o;
    const int64_t *o64 = (const int64_t *)o;
    (void)data, (void)o32, (void)o64, (void)count, (void)end, (void)bits, (void)bit, (void)out;
    (void)records, (void)epin, (void)marks, (void)m;
    switch (kernel * 2 + !!large) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512 * 2:
        return sashite_offsets32_marking_avx512(data, o32, i, count, end, bits, bit, out,
                                                records, epin, marks, m);
    case SASHITE_KERNEL_AVX512 * 2 + 1:
        return sashite_offsets64_marking_avx512(data, o64, i, count, end, bits, bit, out,
                                                records, epin, marks, m);
    case SASHITE_KERNEL_AVX2 * 2:
        return sashite_offsets32_marking_avx2(data, o32, i, count, end, bits, bit, out,
                                              records, epin, marks, m);
    case SASHITE_KERNEL_AVX2 * 2 + 1:
        return sashite_offsets64_marking_avx2(data, o64, i, count, end, bits, bit, out,
                                              records, epin, marks, m);
#endif
    default:
        return i;
    }
}

static inline Py_ssize_t sashite_views_lanes_marking(int kernel, const unsigned char *v,
                                                     Py_ssize_t i, Py_ssize_t count,
                                                     const uint8_t *bits, int64_t bit,
                                                     unsigned char *out,
                                                     const uint64_t *records, int epin,
                                                     Py_ssize_t *marks, Py_ssize_t *m)
{
    (void)v, (void)count, (void)bits, (void)bit, (void)out, (void)records, (void)epin;
    (void)marks, (void)m;
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return sashite_views_marking_avx512(v, i, count, bits, bit, out, records, epin, marks,
                                            m);
    case SASHITE_KERNEL_AVX2:
        return sashite_views_marking_avx2(v, i, count, bits, bit, out, records, epin, marks,
                                          m);
#endif
    default:
        return i;
    }
}

/* Whether a kernel has the marking readers above. */
static inline int sashite_kernel_marking_lanes(int kernel)
{
    return sashite_kernel_avx2_loops(kernel);
}

static inline Py_ssize_t sashite_views_lanes(int kernel, const unsigned char *v, Py_ssize_t i,
                                             Py_ssize_t count, const uint8_t *bits,
                                             int64_t bit, unsigned char *out,
                                             const uint64_t *records, int epin)
{
    (void)v, (void)count, (void)bits, (void)bit, (void)out, (void)records, (void)epin;
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return sashite_views_avx512(v, i, count, bits, bit, out, records, epin);
    case SASHITE_KERNEL_AVX2:
        return sashite_views_avx2(v, i, count, bits, bit, out, records, epin);
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON:
        return sashite_views_neon(v, i, count, bits, bit, out, records, epin);
#endif
    default:
        return i;
    }
}

#endif
