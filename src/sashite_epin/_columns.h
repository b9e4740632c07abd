/* Arrow string columns (_arrow_c.pxi), eight entries at a time with AVX2 or AVX-512:
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

static inline int32_t sashite_load32(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

#ifdef SASHITE_EPIN_AVX2

/* The rule's constants, made once before a loop.  Under AVX2 (16 registers) the
 * compiler may rebuild some inside the loop rather than spill; under AVX-512 (32)
 * the loop pins them to registers (SASHITE_PIN_KEYS), which GCC would otherwise
 * rebuild by a move and a broadcast each, seven of them per group of eight. */
typedef struct {
    __m256i byte, plus, minus, eight, space, minus_a, z, caret, minus_8, quote, one, ones;
} sashite_keys8;

SASHITE_AVX2_TARGET
static inline sashite_keys8 sashite_keys8_make(void)
{
    sashite_keys8 k;
    k.byte = _mm256_set1_epi32(0xFF);
    k.plus = _mm256_set1_epi32('+');
    k.minus = _mm256_set1_epi32('-');
    k.eight = _mm256_set1_epi32(8);
    k.space = _mm256_set1_epi32(0x20);
    k.minus_a = _mm256_set1_epi32(-'a');
    k.z = _mm256_set1_epi32(25);
    k.caret = _mm256_set1_epi32('^');
    k.minus_8 = _mm256_set1_epi32(-8);
    k.quote = _mm256_set1_epi32('\'');
    k.one = _mm256_set1_epi32(1);
    k.ones = _mm256_set1_epi32(-1);
    return k;
}

#define SASHITE_PIN_KEYS_NONE(K)
#define SASHITE_PIN_KEYS(K)                                                                \
    __asm__("" : "+v"((K).byte), "+v"((K).plus), "+v"((K).minus), "+v"((K).eight),        \
            "+v"((K).space), "+v"((K).minus_a), "+v"((K).z), "+v"((K).caret),            \
            "+v"((K).minus_8), "+v"((K).quote), "+v"((K).one), "+v"((K).ones))

/* sashite_key_record's rule on eight lanes: n the lengths, w the first 4 bytes (those
 * past the length are anything).  Sets *index to the record indexes (letter byte |
 * flags << 8) and returns whether all eight are tokens. */
SASHITE_AVX2_TARGET
static inline int sashite_keys8_avx2(__m256i n, __m256i w, int epin, __m256i *index,
                                     const sashite_keys8 *k)
{
    __m256i bits = _mm256_slli_epi32(n, 3);
    /* the low n bytes: a shift by 32 (n = 4) gives 0, so nothing is cleared */
    __m256i key = _mm256_andnot_si256(_mm256_sllv_epi32(k->ones, bits), w);
    __m256i first = _mm256_and_si256(key, k->byte);
    __m256i plus = _mm256_cmpeq_epi32(first, k->plus);
    __m256i minus = _mm256_cmpeq_epi32(first, k->minus);
    __m256i modified = _mm256_or_si256(plus, minus);
    __m256i rest = _mm256_srlv_epi32(key, _mm256_and_si256(modified, k->eight));
    __m256i letter = _mm256_and_si256(rest, k->byte);
    __m256i folded = _mm256_add_epi32(_mm256_or_si256(letter, k->space), k->minus_a);
    __m256i is_letter = _mm256_cmpeq_epi32(_mm256_min_epu32(folded, k->z), folded);
    __m256i terminal = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_srli_epi32(rest, 8), k->byte),
                                          k->caret);
    __m256i last = _mm256_and_si256(_mm256_srlv_epi32(key, _mm256_add_epi32(bits, k->minus_8)),
                                    k->byte);
    __m256i derived = _mm256_cmpeq_epi32(last, k->quote);
    /* the length the flags make, 1 + each flag (the masks are -1 where set): a length
     * outside 1-4 never equals it */
    __m256i length = _mm256_sub_epi32(
        _mm256_sub_epi32(_mm256_sub_epi32(k->one, modified), terminal), derived);
    __m256i ok = _mm256_and_si256(_mm256_cmpeq_epi32(length, n), is_letter);
    /* minus the flags (the masks are -1 where set): derived 8, terminal 4, minus 2,
     * plus 1, by doubling and adding, which needs no constant */
    __m256i flags = _mm256_add_epi32(derived, derived);
    flags = _mm256_add_epi32(flags, terminal);
    flags = _mm256_add_epi32(flags, flags);
    flags = _mm256_add_epi32(flags, minus);
    flags = _mm256_add_epi32(flags, flags);
    flags = _mm256_add_epi32(flags, plus);
#if SASHITE_FLAG_PLUS != 1 || SASHITE_FLAG_MINUS != 2 || SASHITE_FLAG_TERMINAL != 4 \
    || SASHITE_FLAG_DERIVED != 8
#error "sashite_keys8_avx2 builds the flags in the order of their values"
#endif
    if (!epin) /* PIN has no derivation marker */
        ok = _mm256_andnot_si256(derived, ok);
    *index = _mm256_sub_epi32(letter, _mm256_slli_epi32(flags, 8));
    return _mm256_movemask_ps(_mm256_castsi256_ps(ok)) == 0xFF;
}

/* Record indexes wait in a batch, narrowed to 16 bits (they are below 4096), and are
 * written in one counted loop by the bytes kernel's step 4 (_kernels.h), so the loads
 * and checks of the next groups do not wait on the stores: the AVX2 readers write one
 * record at a time, the AVX-512 ones eight by a gather and a byte permute. */
#define SASHITE_COLUMN_BATCH 512

/* The three readers share this loop: GROUP(i, &n, &w) loads group i's lengths and
 * words, or returns 0 when the group is out of its bounds; NARROW packs eight 32-bit
 * indexes to 16 bits; WRITE is a step 4.  Entries i.. to count-1, written to
 * out + 5 * i; returns the first entry not written. */
#define SASHITE_COLUMN_LOOP(GROUP, K, PIN, NARROW, WRITE)                                          \
    {                                                                                      \
        uint16_t batch[SASHITE_COLUMN_BATCH];                                              \
        Py_ssize_t done = i, m = 0;                                                        \
        __m256i n, w, index;                                                               \
        sashite_keys8 keys = sashite_keys8_make();                                         \
        PIN(keys);                                                                         \
        for (; count - i >= 8; i += 8) {                                                   \
            if (!sashite_valid8(bits, bit + i) || !GROUP(K, i, &n, &w)                        \
                || !sashite_keys8_avx2(n, w, epin, &index, &keys))                              \
                break;                                                                     \
            _mm_storeu_si128((__m128i *)(batch + m), NARROW(index));                       \
            m += 8;                                                                        \
            if (m == SASHITE_COLUMN_BATCH) {                                               \
                WRITE(out + 5 * done, records, batch, m);                                  \
                done += m, m = 0;                                                          \
            }                                                                              \
        }                                                                                  \
        WRITE(out + 5 * done, records, batch, m);                                          \
        return i;                                                                          \
    }

SASHITE_AVX2_TARGET
static inline __m128i sashite_narrow_avx2(__m256i x)
{
    return _mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}

SASHITE_AVX512_TARGET
static inline __m128i sashite_narrow_avx512(__m256i x)
{
    return _mm256_cvtepi32_epi16(x);
}

/* Group loaders: the lengths and first 4 bytes of the 8 entries from o (or v), or 0
 * when one lies outside what the exact loop would read: a start s must have
 * 0 <= s < end - 3 (so 4 bytes are readable) before anything is read there. */
SASHITE_AVX2_TARGET
static inline int sashite_group32_avx2(const unsigned char *data, const int32_t *o, __m256i limit,
                                  __m256i *n, __m256i *w)
{
    __m256i s = _mm256_loadu_si256((const __m256i *)o);
    __m256i inside = _mm256_and_si256(_mm256_cmpgt_epi32(s, _mm256_set1_epi32(-1)),
                                      _mm256_cmpgt_epi32(limit, s));
    if (_mm256_movemask_ps(_mm256_castsi256_ps(inside)) != 0xFF)
        return 0;
    *n = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(o + 1)), s);
    *w = _mm256_setr_epi32(sashite_load32(data + o[0]), sashite_load32(data + o[1]),
                           sashite_load32(data + o[2]), sashite_load32(data + o[3]),
                           sashite_load32(data + o[4]), sashite_load32(data + o[5]),
                           sashite_load32(data + o[6]), sashite_load32(data + o[7]));
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
    __m256i s0 = _mm256_loadu_si256((const __m256i *)o);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(o + 4));
    __m256i n0 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(o + 1)), s0);
    __m256i n1 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(o + 5)), s1);
    __m256i inside = _mm256_and_si256(
        _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi64(s0, before), _mm256_cmpgt_epi64(limit, s0)),
                         _mm256_and_si256(_mm256_cmpgt_epi64(s1, before), _mm256_cmpgt_epi64(limit, s1))),
        _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi64(n0, zero), _mm256_cmpgt_epi64(five, n0)),
                         _mm256_and_si256(_mm256_cmpgt_epi64(n1, zero), _mm256_cmpgt_epi64(five, n1))));
    if (_mm256_movemask_pd(_mm256_castsi256_pd(inside)) != 0xF)
        return 0;
    *n = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(n0, low))),
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(n1, low)), 1);
    *w = _mm256_setr_epi32(sashite_load32(data + o[0]), sashite_load32(data + o[1]),
                           sashite_load32(data + o[2]), sashite_load32(data + o[3]),
                           sashite_load32(data + o[4]), sashite_load32(data + o[5]),
                           sashite_load32(data + o[6]), sashite_load32(data + o[7]));
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
    __m256i s = _mm256_loadu_si256((const __m256i *)o);
    /* limit >= 0 (the readers see to it): unsigned, s < limit means 0 <= s < limit */
    if (_mm256_cmplt_epu32_mask(s, limit) != 0xFF)
        return 0;
    *n = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(o + 1)), s);
    *w = _mm256_setr_epi32(sashite_load32(data + o[0]), sashite_load32(data + o[1]),
                           sashite_load32(data + o[2]), sashite_load32(data + o[3]),
                           sashite_load32(data + o[4]), sashite_load32(data + o[5]),
                           sashite_load32(data + o[6]), sashite_load32(data + o[7]));
    return 1;
}

SASHITE_AVX512_TARGET
static inline int sashite_group64_avx512(const unsigned char *data, const int64_t *o,
                                         __m256i limit, __m256i *n, __m256i *w)
{
    const __m256i one = _mm256_set1_epi64x(1), four = _mm256_set1_epi64x(4);
    __m256i s0 = _mm256_loadu_si256((const __m256i *)o);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(o + 4));
    __m256i n0 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(o + 1)), s0);
    __m256i n1 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(o + 5)), s1);
    /* unsigned, as above; and n - 1 < 4 unsigned means 1 <= n <= 4 */
    __mmask8 inside = _mm256_cmplt_epu64_mask(s0, limit) & _mm256_cmplt_epu64_mask(s1, limit)
                      & _mm256_cmplt_epu64_mask(_mm256_sub_epi64(n0, one), four)
                      & _mm256_cmplt_epu64_mask(_mm256_sub_epi64(n1, one), four);
    if (inside != 0xF)
        return 0;
    *n = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvtepi64_epi32(n0)),
                                 _mm256_cvtepi64_epi32(n1), 1);
    *w = _mm256_setr_epi32(sashite_load32(data + o[0]), sashite_load32(data + o[1]),
                           sashite_load32(data + o[2]), sashite_load32(data + o[3]),
                           sashite_load32(data + o[4]), sashite_load32(data + o[5]),
                           sashite_load32(data + o[6]), sashite_load32(data + o[7]));
    return 1;
}

/* The readers, one set per kernel.  Entries i to count - 1 (o and v: the array's
 * offset applied; end: the last offset; bits: the validity bitmap or NULL, bit: the
 * array's offset in it), records to out + 5 * i; each returns the first entry it did
 * not write.  Under the AVX-512 target the same AVX2 code gets 32 vector registers. */
#define SASHITE_DEFINE_COLUMN_READERS(K, TARGET, PIN, NARROW, WRITE)                           \
    TARGET static Py_ssize_t sashite_offsets32_##K(                                        \
        const unsigned char *data, const int32_t *o, Py_ssize_t i, Py_ssize_t count,       \
        int64_t end, const uint8_t *bits, int64_t bit, unsigned char *out,                 \
        const uint64_t *records, int epin)                                                 \
    {                                                                                      \
        /* int32 offsets end below 2**31: end - 3 fits; below 0, no 4 bytes to read */     \
        const __m256i limit = _mm256_set1_epi32((int32_t)(end - 3));                       \
        if (end < 3)                                                                       \
            return i;                                                                      \
        SASHITE_COLUMN_LOOP(SASHITE_GROUP32, K, PIN, NARROW, WRITE)                                \
    }                                                                                      \
    TARGET static Py_ssize_t sashite_offsets64_##K(                                        \
        const unsigned char *data, const int64_t *o, Py_ssize_t i, Py_ssize_t count,       \
        int64_t end, const uint8_t *bits, int64_t bit, unsigned char *out,                 \
        const uint64_t *records, int epin)                                                 \
    {                                                                                      \
        const __m256i limit = _mm256_set1_epi64x(end - 3);                                 \
        if (end < 3)                                                                       \
            return i;                                                                      \
        SASHITE_COLUMN_LOOP(SASHITE_GROUP64, K, PIN, NARROW, WRITE)                                \
    }                                                                                      \
    TARGET static Py_ssize_t sashite_views_##K(                                            \
        const unsigned char *v, Py_ssize_t i, Py_ssize_t count, const uint8_t *bits,       \
        int64_t bit, unsigned char *out, const uint64_t *records, int epin)                \
    {                                                                                      \
        SASHITE_COLUMN_LOOP(SASHITE_GROUP_VIEWS, K, PIN, NARROW, WRITE)                            \
    }

#define SASHITE_GROUP32(K, I, N, W) sashite_group32_##K(data, o + (I), limit, N, W)
#define SASHITE_GROUP64(K, I, N, W) sashite_group64_##K(data, o + (I), limit, N, W)
#define SASHITE_GROUP_VIEWS(K, I, N, W) sashite_group_views_avx2(v + 16 * (I), N, W)
SASHITE_DEFINE_COLUMN_READERS(avx2, SASHITE_AVX2_TARGET, SASHITE_PIN_KEYS_NONE, sashite_narrow_avx2,
                              sashite_write_scalar)
SASHITE_DEFINE_COLUMN_READERS(avx512, SASHITE_AVX512_TARGET, SASHITE_PIN_KEYS, sashite_narrow_avx512,
                              sashite_write_avx512)
#undef SASHITE_GROUP32
#undef SASHITE_GROUP64
#undef SASHITE_GROUP_VIEWS

#else
/* A build without AVX2 (no kernel selects these): the exact loop reads every entry. */
#define SASHITE_DEFINE_COLUMN_READERS(K)                                                   \
    static Py_ssize_t sashite_offsets32_##K(                                               \
        const unsigned char *data, const int32_t *o, Py_ssize_t i, Py_ssize_t count,       \
        int64_t end, const uint8_t *bits, int64_t bit, unsigned char *out,                 \
        const uint64_t *records, int epin)                                                 \
    {                                                                                      \
        return i;                                                                          \
    }                                                                                      \
    static Py_ssize_t sashite_offsets64_##K(                                               \
        const unsigned char *data, const int64_t *o, Py_ssize_t i, Py_ssize_t count,       \
        int64_t end, const uint8_t *bits, int64_t bit, unsigned char *out,                 \
        const uint64_t *records, int epin)                                                 \
    {                                                                                      \
        return i;                                                                          \
    }                                                                                      \
    static Py_ssize_t sashite_views_##K(                                                   \
        const unsigned char *v, Py_ssize_t i, Py_ssize_t count, const uint8_t *bits,       \
        int64_t bit, unsigned char *out, const uint64_t *records, int epin)                \
    {                                                                                      \
        return i;                                                                          \
    }
SASHITE_DEFINE_COLUMN_READERS(avx2)
SASHITE_DEFINE_COLUMN_READERS(avx512)
#endif /* SASHITE_EPIN_AVX2 */

#endif
