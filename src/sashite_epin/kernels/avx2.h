/* The AVX2 kernel, on x86-64 CPUs that have AVX2, POPCNT and BMI1 (chosen at run time,
 * so one wheel runs on any x86-64): step 1 on two 32-byte vectors, step 3 by a pshufb
 * per 8 bits of the letter mask, step 4 one token at a time; the rule on eight lanes
 * for the lane readers (lists of str, Arrow columns, numpy arrays).  The AVX-512
 * kernel (avx512.h) builds on what this file defines. */
#ifndef SASHITE_EPIN_KERNEL_AVX2_H
#define SASHITE_EPIN_KERNEL_AVX2_H

#ifdef SASHITE_EPIN_AVX2
#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_AVX2_TARGET __attribute__((target("avx2,popcnt,bmi")))
/* The POPCNT instruction, in a function whose target has it. */
#define SASHITE_POPCNT64(x) __builtin_popcountll(x)
#else /* MSVC: see _kernels.h */
#define SASHITE_AVX2_TARGET
#define SASHITE_POPCNT64(x) ((int)__popcnt64(x))
#endif
SASHITE_AVX2_TARGET
static inline void sashite_block_avx2(const unsigned char *q, sashite_classes *c,
                                      uint16_t *index) {
    const __m256i space = _mm256_set1_epi8(32), nine = _mm256_set1_epi8(9),
                  four = _mm256_set1_epi8(4), case_bit = _mm256_set1_epi8(0x20),
                  a = _mm256_set1_epi8('a'), last = _mm256_set1_epi8(25),
                  plus = _mm256_set1_epi8('+'), minus = _mm256_set1_epi8('-'),
                  caret = _mm256_set1_epi8('^'), apos = _mm256_set1_epi8('\''),
                  f_plus = _mm256_set1_epi8(SASHITE_FLAG_PLUS),
                  f_minus = _mm256_set1_epi8(SASHITE_FLAG_MINUS),
                  f_terminal = _mm256_set1_epi8(SASHITE_FLAG_TERMINAL),
                  f_derived = _mm256_set1_epi8(SASHITE_FLAG_DERIVED);
    uint64_t s = 0, m = 0, l = 0, t = 0, ap = 0;
    int j;
    for (j = 0; j < 64; j += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(q + j));
        __m256i prev = _mm256_loadu_si256((const __m256i *)(q + j - 1));
        __m256i next = _mm256_loadu_si256((const __m256i *)(q + j + 1));
        __m256i after = _mm256_loadu_si256((const __m256i *)(q + j + 2));
        __m256i u = _mm256_sub_epi8(v, nine);
        __m256i sep = _mm256_or_si256(_mm256_cmpeq_epi8(v, space),
                                      _mm256_cmpeq_epi8(_mm256_min_epu8(u, four), u));
        __m256i w = _mm256_sub_epi8(_mm256_or_si256(v, case_bit), a);
        __m256i letter = _mm256_cmpeq_epi8(_mm256_min_epu8(w, last), w);
        __m256i modifier = _mm256_or_si256(_mm256_cmpeq_epi8(v, plus),
                                           _mm256_cmpeq_epi8(v, minus));
        __m256i terminal = _mm256_cmpeq_epi8(next, caret);
        __m256i derived = _mm256_or_si256(
            _mm256_cmpeq_epi8(next, apos), _mm256_and_si256(terminal, _mm256_cmpeq_epi8(after, apos)));
        __m256i flags = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi8(prev, plus), f_plus),
                            _mm256_and_si256(_mm256_cmpeq_epi8(prev, minus), f_minus)),
            _mm256_or_si256(_mm256_and_si256(terminal, f_terminal),
                            _mm256_and_si256(derived, f_derived)));
        /* unpack works within 128-bit lanes: order the quarters 0 2 1 3 first, so the
         * low unpack gives bytes 0-15 and the high one bytes 16-31. */
        __m256i vq = _mm256_permute4x64_epi64(v, 0xD8), fq = _mm256_permute4x64_epi64(flags, 0xD8);
        s |= (uint64_t)(uint32_t)_mm256_movemask_epi8(sep) << j;
        m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(modifier) << j;
        l |= (uint64_t)(uint32_t)_mm256_movemask_epi8(letter) << j;
        t |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, caret)) << j;
        ap |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, apos)) << j;
        _mm256_storeu_si256((__m256i *)(index + j), _mm256_unpacklo_epi8(vq, fq));
        _mm256_storeu_si256((__m256i *)(index + j + 16), _mm256_unpackhi_epi8(vq, fq));
    }
    c->sep = s, c->modifier = m, c->letter = l, c->caret = t, c->apostrophe = ap;
}

SASHITE_AVX2_TARGET
static inline uint64_t sashite_sep_mask64_avx2(const unsigned char *p) {
    const __m256i space = _mm256_set1_epi8(32), nine = _mm256_set1_epi8(9),
                  four = _mm256_set1_epi8(4);
    __m256i v0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i u0 = _mm256_sub_epi8(v0, nine), u1 = _mm256_sub_epi8(v1, nine);
    __m256i s0 = _mm256_or_si256(_mm256_cmpeq_epi8(v0, space),
                                 _mm256_cmpeq_epi8(_mm256_min_epu8(u0, four), u0));
    __m256i s1 = _mm256_or_si256(_mm256_cmpeq_epi8(v1, space),
                                 _mm256_cmpeq_epi8(_mm256_min_epu8(u1, four), u1));
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(s0)
           | (uint64_t)(uint32_t)_mm256_movemask_epi8(s1) << 32;
}


/* For each byte of a letter mask, the pshufb that gathers the 16-bit indexes of its set
 * bits to the front (simdjson and simdutf compress bytes the same way). */
static unsigned char sashite_gather_8[256][16];

static void sashite_build_gather_table(void) {
    int bits, bit, m;
    for (bits = 0; bits < 256; bits++) {
        memset(sashite_gather_8[bits], 0x80, 16);
        for (bit = 0, m = 0; bit < 8; bit++)
            if (bits >> bit & 1) {
                sashite_gather_8[bits][2 * m] = (unsigned char)(2 * bit);
                sashite_gather_8[bits][2 * m + 1] = (unsigned char)(2 * bit + 1);
                m++;
            }
    }
}

/* Eight bytes of the mask at a time, with no branch: the chain of clearing one bit per
 * token (the scalar way) costs more than the gather. */
SASHITE_AVX2_TARGET
static inline int sashite_compress_avx2(const uint16_t *index, uint64_t letters,
                                        uint16_t *to) {
    int j;
    for (j = 0; j < 8; j++) {
        /* where chunk j's entries go: counted from the mask, not from chunk j - 1's
         * count, so the eight gathers do not wait on each other */
        int m = (int)_mm_popcnt_u64(letters & ((1ULL << (8 * j)) - 1));
        unsigned bits = (unsigned)(letters >> (8 * j)) & 255;
        __m128i v = _mm_loadu_si128((const __m128i *)(index + 8 * j));
        __m128i gather = _mm_loadu_si128((const __m128i *)sashite_gather_8[bits]);
        _mm_storeu_si128((__m128i *)(to + m), _mm_shuffle_epi8(v, gather));
    }
    return (int)_mm_popcnt_u64(letters);
}


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

#define SASHITE_PIN_KEYS(K)                                                                \
    __asm__("" : "+v"((K).byte), "+v"((K).plus), "+v"((K).minus), "+v"((K).eight),        \
            "+v"((K).space), "+v"((K).minus_a), "+v"((K).z), "+v"((K).caret),            \
            "+v"((K).minus_8), "+v"((K).quote), "+v"((K).one), "+v"((K).ones))

/* sashite_key_record's rule on eight lanes: n the lengths, w the first 4 bytes (those
 * past the length are anything).  Sets *index to the record indexes (letter byte |
 * flags << 8) and returns whether all eight are tokens. */
SASHITE_AVX2_TARGET
static inline __m256i sashite_rule8_avx2(__m256i n, __m256i w, int epin, __m256i *index,
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
    return ok;
}

/* The rule's record indexes; whether all eight lanes are tokens. */
SASHITE_AVX2_TARGET
static inline int sashite_keys8_avx2(__m256i n, __m256i w, int epin, __m256i *index,
                                     const sashite_keys8 *k)
{
    __m256i ok = sashite_rule8_avx2(n, w, epin, index, k);
    return _mm256_movemask_ps(_mm256_castsi256_ps(ok)) == 0xFF;
}

/* Under errors="mark": each lane's record index, 0 (whose record is 0) for a lane that
 * is no token or is null (its bit in valid clear), and the position (at + lane) of each such lane appended to
 * marks[*m ..]. */
SASHITE_AVX2_TARGET
static inline __m256i sashite_mark8_index_avx2(__m256i n, __m256i w, int epin,
                                               const sashite_keys8 *k, unsigned valid,
                                               Py_ssize_t at, Py_ssize_t *marks,
                                               Py_ssize_t *m)
{
    const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i index;
    __m256i ok = sashite_rule8_avx2(n, w, epin, &index, k);
    /* valid: bit j clear where lane j is null (a validity bitmap's 8 bits) */
    ok = _mm256_and_si256(
        ok, _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)valid), lane), lane));
    unsigned refused = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(ok)) & 0xFFu;
    for (; refused; refused &= refused - 1)
        marks[(*m)++] = at + sashite_ctz64(refused);
    return _mm256_and_si256(index, ok);
}

SASHITE_AVX2_TARGET
static inline __m128i sashite_narrow_avx2(__m256i x)
{
    return _mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}

/* The rule on eight lanes: whether all eight are tokens, and then their record indexes
 * narrowed to to[0..7] (the store after the branch: storing first was 8 % slower on
 * Arrow columns here). */
SASHITE_AVX2_TARGET
static inline int sashite_index8_avx2(__m256i n, __m256i w, int epin, const sashite_keys8 *k,
                                      uint16_t *to)
{
    __m256i index;
    if (!sashite_keys8_avx2(n, w, epin, &index, k))
        return 0;
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx2(index));
    return 1;
}

SASHITE_AVX2_TARGET
static inline void sashite_mark8_avx2(__m256i n, __m256i w, int epin, const sashite_keys8 *k,
                                      uint16_t *to, unsigned valid, Py_ssize_t at,
                                      Py_ssize_t *marks, Py_ssize_t *m)
{
    __m256i index = sashite_mark8_index_avx2(n, w, epin, k, valid, at, marks, m);
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx2(index));
}

/* sashite_mark8_avx2 for numpy S / U elements (no validity bits), each refused lane's
 * word (its element's units, kernels/generic/fixed.h) appended to keys[*m ..] beside
 * its position: the exact code then finds its reason, and later its text, from the
 * word alone (the array may change after the call). */
SASHITE_AVX2_TARGET
static inline void sashite_mark8_keys_avx2(__m256i n, __m256i w, int epin,
                                           const sashite_keys8 *k, uint16_t *to,
                                           Py_ssize_t at, Py_ssize_t *marks, uint32_t *keys,
                                           Py_ssize_t *m)
{
    __m256i index;
    __m256i ok = sashite_rule8_avx2(n, w, epin, &index, k);
    unsigned refused = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(ok)) & 0xFFu;
    if (refused) {
        uint32_t words[8];
        _mm256_storeu_si256((__m256i *)words, w);
        for (; refused; refused &= refused - 1) {
            int j = sashite_ctz64(refused);
            marks[*m] = at + j, keys[*m] = words[j], (*m)++;
        }
    }
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx2(_mm256_and_si256(index, ok)));
}

/* What the lane readers' loop (generic/lanes.h) declares under this kernel: the
 * group's lengths and words, and the rule's constants. */
#define SASHITE_LANES_STATE_AVX2                                                           \
    __m256i n, w;                                                                          \
    sashite_keys8 keys = sashite_keys8_make();


/* CPUID and XGETBV (SASHITE_EPIN_CPUID, _kernels.h): how every build asks the CPU,
 * whatever its compiler and runtime.  An extension runs when the CPU has it and the
 * system saves its registers on a context switch (XCR0: bits 1-2 the SSE and AVX state,
 * bits 5-7 AVX-512's).  GCC and clang take CPUID from cpuid.h and XGETBV from the xsave
 * target below; MSVC both from intrin.h. */
#if defined(_MSC_VER)
#define SASHITE_CPUID(r, leaf) __cpuidex((int *)(r), (leaf), 0)
#else
#include <cpuid.h>
#define SASHITE_CPUID(r, leaf) __cpuid_count((leaf), 0, (r)[0], (r)[1], (r)[2], (r)[3])
#endif
enum {
    SASHITE_CPU_AVX2 = 1,   /* AVX2, POPCNT and BMI1 */
    SASHITE_CPU_AVX512 = 2, /* and AVX-512 F, BW, VL, VBMI and VBMI2 */
    SASHITE_CPU_BMI2 = 3    /* AVX2's and BMI2 */
};
#if defined(__GNUC__) || defined(__clang__)
__attribute__((target("xsave")))
#endif
static inline int sashite_cpu_has(int what) {
    unsigned int leaf1[4], leaf7[4];
    unsigned long long xcr0;
    SASHITE_CPUID(leaf1, 0);
    if (leaf1[0] < 7)
        return 0;
    SASHITE_CPUID(leaf1, 1);
    SASHITE_CPUID(leaf7, 7);
    if (!(leaf1[2] & (1u << 27))) /* OSXSAVE: XGETBV may be asked */
        return 0;
    xcr0 = _xgetbv(0);
    if ((xcr0 & 0x6) != 0x6 || !(leaf1[2] & (1u << 23)) /* POPCNT */
        || !(leaf7[1] & (1u << 5)) || !(leaf7[1] & (1u << 3))) /* AVX2, BMI1 */
        return 0;
    if (what == SASHITE_CPU_AVX2)
        return 1;
    if (what == SASHITE_CPU_BMI2)
        return (leaf7[1] & (1u << 8)) != 0;
    return (xcr0 & 0xE0) == 0xE0 && (leaf7[1] & (1u << 16)) /* AVX-512 F */
           && (leaf7[1] & (1u << 30)) && (leaf7[1] & (1u << 31)) /* BW, VL */
           && (leaf7[2] & (1u << 1)) && (leaf7[2] & (1u << 6)); /* VBMI, VBMI2 */
}

/* Whether the CPU runs this kernel (asked once per kernel choice, not per call). */
static int sashite_runs_avx2(void) { return sashite_cpu_has(SASHITE_CPU_AVX2); }

#define SASHITE_NAMED(f) f##_avx2
#define SASHITE_TARGET SASHITE_AVX2_TARGET
#define SASHITE_SEP_MASK sashite_sep_mask64_avx2
#define SASHITE_POPCOUNT SASHITE_POPCNT64
#define SASHITE_PREPARE
#define SASHITE_BLOCK sashite_block_avx2
#define SASHITE_COMPRESS sashite_compress_avx2
#define SASHITE_WRITE sashite_write_scalar
#include "generic/count.h"
#include "generic/decode.h"
#include "generic/marks.h"
#include "generic/scan.h"
#include "generic/rows.h"
#include "generic/undef.h"

static const sashite_kernel sashite_kernel_avx2 = {
    "avx2", sashite_runs_avx2, sashite_count_avx2, sashite_decode_avx2,
    sashite_scan_avx2, sashite_rows_avx2};
#else
static void sashite_build_gather_table(void) {}
static const sashite_kernel sashite_kernel_avx2 = {
    "avx2", sashite_never, NULL, NULL, NULL, NULL};
#endif

#endif
