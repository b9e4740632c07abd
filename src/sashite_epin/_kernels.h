/* The bytes path's hot loop (parse_many over whitespace-separated tokens), in five
 * kernels that give identical results: portable (plain C, on every CPU: the exact
 * scanner of _bulk_c.pxi alone), SSE2 (every x86-64), AVX2 and AVX-512 (each chosen at
 * run time, so one wheel runs on any x86-64), NEON (every aarch64, chosen at compile
 * time).  _bulk_c.pxi picks one; the exact scanner reads whatever a SIMD kernel does
 * not accept.
 *
 * A SIMD kernel decodes 64 bytes at a time without a per-byte branch:
 *
 * 1. Classes.  Masks of the block's separators (bytes.split()'s whitespace, 9-13 and
 *    32), state modifiers ('+' '-'), letters, terminal markers ('^') and derivation
 *    markers ('\''), bit i for byte i.
 * 2. Order.  A run of non-separators is a token exactly when it reads
 *    modifier? letter caret? apostrophe?, and that holds when every byte's predecessor
 *    is one the grammar allows before it (a modifier: a separator; a letter: a separator
 *    or a modifier; a caret: a letter; an apostrophe: a letter or a caret; a separator:
 *    anything but a modifier), the byte before the buffer counting as a separator.  So
 *    the whole block is checked with a few shifts and ANDs of the masks.  Any other byte
 *    (a digit, a second letter, non-ASCII) fails that check and the block goes to the
 *    exact scanner, which gives the error's index and reason.
 * 3. Records.  Each token has one letter; its byte and the flags read around it (a '+'
 *    or '-' before, a '^' after, a '\'' after the letter or its '^') index a table of the 5-byte
 *    records, so writing a token is a load and a store (AVX-512: eight tokens a gather,
 *    a permute and a store).  The table is built by the core from its own codes: what a
 *    token means stays there.
 *
 * A kernel stops at the first block that fails step 2 and says where the exact scanner
 * must start: the first token it did not write. */
#ifndef SASHITE_EPIN_KERNELS_H
#define SASHITE_EPIN_KERNELS_H

#include <stddef.h>

#include "_split.h"

/* The AVX2 and AVX-512 kernels, on x86-64 or x86 with SSE2, chosen at run time:
 * - GCC and clang compile each for its extension alone by a target attribute, and ask
 *   the CPU through __builtin_cpu_supports.
 * - MSVC has no such attribute and needs none: it takes the intrinsics of any extension
 *   in any function.  It asks the CPU through CPUID and XGETBV (sashite_cpu_has below).
 * - clang-cl (clang with MSVC's headers and rules) takes the attributes, but its
 *   immintrin.h leaves out each extension's header unless the whole build targets that
 *   extension, so they are included one by one (simdjson does the same), and it asks
 *   the CPU as MSVC does (__builtin_cpu_supports needs a runtime library MSVC's linker
 *   does not bring). */
#if defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64)
#include <intrin.h>
#include <immintrin.h>
#define SASHITE_EPIN_AVX2 1
#define SASHITE_EPIN_MSVC_CPUID 1
#elif (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) \
    && defined(SASHITE_EPIN_SSE2)
#include <immintrin.h>
#if defined(_MSC_VER) && defined(__x86_64__)
#include <intrin.h>
#include <smmintrin.h>
#include <popcntintrin.h>
#include <bmiintrin.h>
#include <xsaveintrin.h>
#include <avxintrin.h>
#include <avx2intrin.h>
#include <avx512fintrin.h>
#include <avx512bwintrin.h>
#include <avx512vlintrin.h>
#include <avx512vlbwintrin.h>
#include <avx512vbmiintrin.h>
#include <avx512vbmi2intrin.h>
#define SASHITE_EPIN_MSVC_CPUID 1
#endif
#define SASHITE_EPIN_AVX2 1
#endif

enum {
    SASHITE_KERNEL_PORTABLE = 0,
    SASHITE_KERNEL_SSE2 = 1,
    SASHITE_KERNEL_AVX2 = 2,
    SASHITE_KERNEL_AVX512 = 3,
    SASHITE_KERNEL_NEON = 4,
    SASHITE_KERNEL_COUNT = 5
};

/* Whether a kernel runs the x86 loops written for AVX2 (the lanes below, and the
 * export's and to_bytes' loops): AVX2, and AVX-512 where it has none of its own. */
static inline int sashite_kernel_avx2_loops(int kernel) {
    return kernel == SASHITE_KERNEL_AVX2 || kernel == SASHITE_KERNEL_AVX512;
}

/* What a decoding kernel returns. */
enum {
    SASHITE_DECODED = 0,  /* every token of the buffer written */
    SASHITE_STOPPED = 1,  /* a block the exact scanner must read: *at, *k say where */
    SASHITE_OVERFLOW = 2  /* more tokens than the caller counted: the buffer changed */
};

/* Flags of a letter, bits 8-11 of a record table index (bits 0-7: the letter's byte). */
#define SASHITE_FLAG_PLUS 1
#define SASHITE_FLAG_MINUS 2
#define SASHITE_FLAG_TERMINAL 4
#define SASHITE_FLAG_DERIVED 8
#define SASHITE_RECORD_INDEXES 4096

typedef struct {
    uint64_t sep, modifier, letter, caret, apostrophe;
} sashite_classes;

/* One token through the same table, for readers that already know where a token
 * starts and how long it is (str objects, _strs.h): its n bytes (1-4) in the low bytes
 * of key, the bytes above them zero.  The letter (after a '+' or '-') and the
 * flags read around it index the table; the token is valid exactly when that byte is
 * an ASCII letter (else the record is 0) and n is what the flags make it, which leaves
 * no room for any other byte.  Its record, or 0 (a record's letter byte never is): the
 * exact scanner then says why. */
static inline uint64_t sashite_key_record(uint32_t key, ptrdiff_t n, const uint64_t *records,
                                          int epin) {
    uint32_t plus = (key & 0xFF) == '+', minus = (key & 0xFF) == '-';
    uint32_t modified = plus | minus;
    uint32_t rest = key >> (modified << 3); /* the letter (or whatever stands there) */
    uint32_t terminal = ((rest >> 8) & 0xFF) == '^';
    uint32_t derived = ((key >> ((n - 1) << 3)) & 0xFF) == '\'';
    uint64_t record = records[(rest & 0xFF) | (plus * SASHITE_FLAG_PLUS
                                               | minus * SASHITE_FLAG_MINUS
                                               | terminal * SASHITE_FLAG_TERMINAL
                                               | derived * SASHITE_FLAG_DERIVED) << 8];
    uint64_t valid = ((ptrdiff_t)(1 + modified + terminal + derived) == n) & (epin | !derived);
    return record & (0 - valid);
}

/* Keeps the low n bytes of a 4-byte load (n 1-4). */
static inline uint32_t sashite_key_bytes(uint32_t word, ptrdiff_t n) {
    return (uint32_t)((UINT64_C(1) << (n << 3)) - 1) & word;
}

/* A reader's hot loop is kept out of line: it gets the registers to itself, where
 * inlined into its caller's many live values it would spill. */
#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define SASHITE_NOINLINE __declspec(noinline)
#else
#define SASHITE_NOINLINE
#endif

#include "kernels/portable.h"

/* ---- step 1 and the record indexes, per SIMD kernel -----------------------------------
 * sashite_block_K(q, c, index): q[-1] .. q[65] readable; classes of q[0..63] into c,
 * index[i] = q[i] | flags << 8 (meaningful where q[i] is a letter of a valid token).
 * (The AVX-512 one also takes its constants, made before the loop.)
 * The portable kernel has none: it is the exact scanner alone, on portable separator
 * masks (a byte-by-byte version of these steps costs more than that scanner). */

#ifdef SASHITE_EPIN_SSE2
static inline void sashite_block_sse2(const unsigned char *q, sashite_classes *c,
                                      uint16_t *index) {
    const __m128i space = _mm_set1_epi8(32), nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4),
                  case_bit = _mm_set1_epi8(0x20), a = _mm_set1_epi8('a'),
                  last = _mm_set1_epi8(25), plus = _mm_set1_epi8('+'),
                  minus = _mm_set1_epi8('-'), caret = _mm_set1_epi8('^'),
                  apos = _mm_set1_epi8('\''), f_plus = _mm_set1_epi8(SASHITE_FLAG_PLUS),
                  f_minus = _mm_set1_epi8(SASHITE_FLAG_MINUS),
                  f_terminal = _mm_set1_epi8(SASHITE_FLAG_TERMINAL),
                  f_derived = _mm_set1_epi8(SASHITE_FLAG_DERIVED);
    uint64_t s = 0, m = 0, l = 0, t = 0, ap = 0;
    int j;
    for (j = 0; j < 64; j += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(q + j));
        __m128i prev = _mm_loadu_si128((const __m128i *)(q + j - 1));
        __m128i next = _mm_loadu_si128((const __m128i *)(q + j + 1));
        __m128i after = _mm_loadu_si128((const __m128i *)(q + j + 2));
        __m128i u = _mm_sub_epi8(v, nine); /* 9..13 -> 0..4, unsigned */
        __m128i sep = _mm_or_si128(_mm_cmpeq_epi8(v, space),
                                   _mm_cmpeq_epi8(_mm_min_epu8(u, four), u));
        __m128i w = _mm_sub_epi8(_mm_or_si128(v, case_bit), a); /* letters -> 0..25 */
        __m128i letter = _mm_cmpeq_epi8(_mm_min_epu8(w, last), w);
        __m128i modifier = _mm_or_si128(_mm_cmpeq_epi8(v, plus), _mm_cmpeq_epi8(v, minus));
        __m128i terminal = _mm_cmpeq_epi8(next, caret);
        __m128i derived = _mm_or_si128(_mm_cmpeq_epi8(next, apos),
                                       _mm_and_si128(terminal, _mm_cmpeq_epi8(after, apos)));
        __m128i flags = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(prev, plus), f_plus),
                         _mm_and_si128(_mm_cmpeq_epi8(prev, minus), f_minus)),
            _mm_or_si128(_mm_and_si128(terminal, f_terminal), _mm_and_si128(derived, f_derived)));
        s |= (uint64_t)(uint16_t)_mm_movemask_epi8(sep) << j;
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(modifier) << j;
        l |= (uint64_t)(uint16_t)_mm_movemask_epi8(letter) << j;
        t |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, caret)) << j;
        ap |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, apos)) << j;
        _mm_storeu_si128((__m128i *)(index + j), _mm_unpacklo_epi8(v, flags));
        _mm_storeu_si128((__m128i *)(index + j + 8), _mm_unpackhi_epi8(v, flags));
    }
    c->sep = s, c->modifier = m, c->letter = l, c->caret = t, c->apostrophe = ap;
}
#endif

#ifdef SASHITE_EPIN_NEON
/* The SSE2 block's steps on NEON's 16-byte vectors; the masks by sashite_neon_mask64,
 * the indexes stored interleaved (byte, flags) by one vst2q per 16 bytes. */
static inline void sashite_block_neon(const unsigned char *q, sashite_classes *c,
                                      uint16_t *index) {
    const uint8x16_t plus = vdupq_n_u8('+'), minus = vdupq_n_u8('-'), caret = vdupq_n_u8('^'),
                     apos = vdupq_n_u8('\''), f_plus = vdupq_n_u8(SASHITE_FLAG_PLUS),
                     f_minus = vdupq_n_u8(SASHITE_FLAG_MINUS),
                     f_terminal = vdupq_n_u8(SASHITE_FLAG_TERMINAL),
                     f_derived = vdupq_n_u8(SASHITE_FLAG_DERIVED);
    uint8x16_t sep[4], modifier[4], letter[4], car[4], ap[4];
    int j;
    for (j = 0; j < 4; j++) {
        uint8x16_t v = vld1q_u8(q + 16 * j), prev = vld1q_u8(q + 16 * j - 1),
                   next = vld1q_u8(q + 16 * j + 1), after = vld1q_u8(q + 16 * j + 2);
        uint8x16_t terminal = vceqq_u8(next, caret);
        uint8x16_t derived = vorrq_u8(vceqq_u8(next, apos),
                                      vandq_u8(terminal, vceqq_u8(after, apos)));
        uint8x16x2_t pair;
        pair.val[0] = v;
        pair.val[1] = vorrq_u8(vorrq_u8(vandq_u8(vceqq_u8(prev, plus), f_plus),
                                        vandq_u8(vceqq_u8(prev, minus), f_minus)),
                               vorrq_u8(vandq_u8(terminal, f_terminal),
                                        vandq_u8(derived, f_derived)));
        sep[j] = sashite_neon_sep(v);
        letter[j] = sashite_neon_letter(v);
        modifier[j] = vorrq_u8(vceqq_u8(v, plus), vceqq_u8(v, minus));
        car[j] = vceqq_u8(v, caret);
        ap[j] = vceqq_u8(v, apos);
        vst2q_u8((uint8_t *)(index + 16 * j), pair); /* little-endian: byte | flags << 8 */
    }
    c->sep = sashite_neon_mask64(sep[0], sep[1], sep[2], sep[3]);
    c->modifier = sashite_neon_mask64(modifier[0], modifier[1], modifier[2], modifier[3]);
    c->letter = sashite_neon_mask64(letter[0], letter[1], letter[2], letter[3]);
    c->caret = sashite_neon_mask64(car[0], car[1], car[2], car[3]);
    c->apostrophe = sashite_neon_mask64(ap[0], ap[1], ap[2], ap[3]);
}
#endif

#ifdef SASHITE_EPIN_AVX2
#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_AVX2_TARGET __attribute__((target("avx2,popcnt,bmi")))
/* The POPCNT instruction, in a function whose target has it. */
#define SASHITE_POPCNT64(x) __builtin_popcountll(x)
#else /* MSVC: see above */
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

/* AVX-512 (BW for byte compares into mask registers, VBMI2 for byte compress, VBMI
 * for the byte permute that packs records): the whole block in one register, each
 * class one compare into a 64-bit mask, no movemask.  Its block hands the letters'
 * record indexes already in token order: index[0..31] are those of the block's first
 * 32 letters (a block that passes step 2 has at most 32: each token but one ends
 * with a separator inside the block), compressed from the letter bytes and their
 * flag bytes.  So its step 3 is a copy.  scan_many reads indexes by byte position:
 * under this kernel it runs the AVX2 block loop (sashite_scan_kernel). */
#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_AVX512_TARGET                                                               \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx2,popcnt,bmi")))
#else
#define SASHITE_AVX512_TARGET
#endif

/* The block's constants, made once before the block loop and pinned to registers
 * there (SASHITE_PREPARE_AVX512): GCC would otherwise rebuild each, a move and a
 * broadcast, in every block (eleven of them).  AVX-512 has 32 vector registers; the
 * loop needs some 25. */
typedef struct {
    __m512i space, nine, four, low, a, z, caret, apos, plus, minus, f_plus, f_minus, f_term,
        f_der;
} sashite_consts512;

SASHITE_AVX512_TARGET
static inline sashite_consts512 sashite_consts512_make(void) {
    sashite_consts512 k;
    k.space = _mm512_set1_epi8(32);
    k.nine = _mm512_set1_epi8(9);
    k.four = _mm512_set1_epi8(4);
    k.low = _mm512_set1_epi8(0x20);
    k.a = _mm512_set1_epi8('a');
    k.z = _mm512_set1_epi8(25);
    k.caret = _mm512_set1_epi8('^');
    k.apos = _mm512_set1_epi8('\'');
    k.plus = _mm512_set1_epi8('+');
    k.minus = _mm512_set1_epi8('-');
    k.f_plus = _mm512_set1_epi8(SASHITE_FLAG_PLUS);
    k.f_minus = _mm512_set1_epi8(SASHITE_FLAG_MINUS);
    k.f_term = _mm512_set1_epi8(SASHITE_FLAG_TERMINAL);
    k.f_der = _mm512_set1_epi8(SASHITE_FLAG_DERIVED);
    return k;
}

/* Declares the constants as k512 in the decode function; SASHITE_BLOCK_AVX512 hands
 * them to the block. */
#define SASHITE_PREPARE_AVX512                                                               \
    sashite_consts512 k512 = sashite_consts512_make();                                       \
    __asm__("" : "+v"(k512.space), "+v"(k512.nine), "+v"(k512.four), "+v"(k512.low),        \
            "+v"(k512.a), "+v"(k512.z), "+v"(k512.caret), "+v"(k512.apos), "+v"(k512.plus), \
            "+v"(k512.minus), "+v"(k512.f_plus), "+v"(k512.f_minus), "+v"(k512.f_term),     \
            "+v"(k512.f_der));
#define SASHITE_BLOCK_AVX512(Q, C, INDEX) sashite_block_avx512(Q, C, INDEX, &k512)

SASHITE_AVX512_TARGET
static inline __mmask64 sashite_sep_k512(__m512i v, const sashite_consts512 *k) {
    return _mm512_cmpeq_epi8_mask(v, k->space)
           | _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, k->nine), k->four);
}

SASHITE_AVX512_TARGET
static inline uint64_t sashite_sep_mask64_avx512(const unsigned char *p) {
    sashite_consts512 k = sashite_consts512_make();
    return (uint64_t)sashite_sep_k512(_mm512_loadu_si512((const void *)p), &k);
}

SASHITE_AVX512_TARGET
static inline void sashite_block_avx512(const unsigned char *q, sashite_classes *c,
                                        uint16_t *index, const sashite_consts512 *k) {
    __m512i v = _mm512_loadu_si512((const void *)q);
    __m512i prev = _mm512_loadu_si512((const void *)(q - 1));
    __m512i next = _mm512_loadu_si512((const void *)(q + 1));
    __m512i after = _mm512_loadu_si512((const void *)(q + 2));
    __mmask64 letter = _mm512_cmple_epu8_mask(
        _mm512_sub_epi8(_mm512_or_si512(v, k->low), k->a), k->z);
    __mmask64 terminal = _mm512_cmpeq_epi8_mask(next, k->caret);
    __mmask64 derived = _mm512_cmpeq_epi8_mask(next, k->apos)
                        | (terminal & _mm512_cmpeq_epi8_mask(after, k->apos));
    /* each byte's flags, by merging adds (a byte is never both '+' and '-') */
    __m512i flags = _mm512_maskz_mov_epi8(_mm512_cmpeq_epi8_mask(prev, k->plus), k->f_plus);
    __m512i letters, their_flags;
    flags = _mm512_mask_mov_epi8(flags, _mm512_cmpeq_epi8_mask(prev, k->minus), k->f_minus);
    flags = _mm512_mask_add_epi8(flags, terminal, flags, k->f_term);
    flags = _mm512_mask_add_epi8(flags, derived, flags, k->f_der);
    c->sep = (uint64_t)sashite_sep_k512(v, k);
    c->modifier = (uint64_t)(_mm512_cmpeq_epi8_mask(v, k->plus)
                             | _mm512_cmpeq_epi8_mask(v, k->minus));
    c->letter = (uint64_t)letter;
    c->caret = (uint64_t)_mm512_cmpeq_epi8_mask(v, k->caret);
    c->apostrophe = (uint64_t)_mm512_cmpeq_epi8_mask(v, k->apos);
    letters = _mm512_maskz_compress_epi8(letter, v);
    their_flags = _mm512_maskz_compress_epi8(letter, flags);
    _mm512_storeu_si512((void *)index, _mm512_or_si512(
        _mm512_cvtepu8_epi16(_mm512_castsi512_si256(letters)),
        _mm512_slli_epi16(_mm512_cvtepu8_epi16(_mm512_castsi512_si256(their_flags)), 8)));
}
#endif

/* ---- counting tokens, the same code for every kernel ------------------------------- */

/* How many runs of non-separators p[0..size-1] holds: a popcount of token starts (a
 * non-separator after a separator) per 64-byte block. */
#define SASHITE_DEFINE_COUNT(NAME, ATTR, SEP_MASK, POPCOUNT)                                \
    ATTR static Py_ssize_t NAME(const unsigned char *p, Py_ssize_t size) {                 \
        Py_ssize_t b = 0, count = 0;                                                      \
        uint64_t word, carry = 0; /* the previous block ended inside a token */           \
        unsigned char block[64];                                                          \
        for (; size - b >= 64; b += 64) {                                                 \
            word = ~SEP_MASK(p + b);                                                      \
            count += POPCOUNT(word & ~((word << 1) | carry));                             \
            carry = word >> 63;                                                           \
        }                                                                                 \
        if (b < size) {                                                                   \
            memset(block, 32, sizeof block);                                              \
            memcpy(block, p + b, (size_t)(size - b));                                     \
            word = ~SEP_MASK(block);                                                      \
            count += POPCOUNT(word & ~((word << 1) | carry));                             \
        }                                                                                 \
        return count;                                                                     \
    }

/* ---- step 3: the letters' record indexes, in token order ------------------------------
 * sashite_compress_K(index, letters, to): index[i] for each set bit i of letters, in
 * order, to to[0..]; writes up to 8 entries past the last (AVX-512: always 32 in all);
 * returns how many. */

static inline int sashite_compress_scalar(const uint16_t *index, uint64_t letters,
                                          uint16_t *to) {
    int m = 0;
    for (; letters; letters &= letters - 1)
        to[m++] = index[sashite_ctz64(letters)];
    return m;
}

#ifdef SASHITE_EPIN_AVX2
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

/* The AVX-512 block compressed already: 32 entries (64 bytes) in one copy. */
SASHITE_AVX512_TARGET
static inline int sashite_compress_avx512(const uint16_t *index, uint64_t letters,
                                          uint16_t *to) {
    _mm512_storeu_si512((void *)to, _mm512_loadu_si512((const void *)index));
    return (int)_mm_popcnt_u64(letters);
}
#else
static void sashite_build_gather_table(void) {}
#endif

/* ---- step 4: the records of a batch of indexes ---------------------------------------
 * sashite_write_K(out, records, batch, m): records[batch[t]] to out + 5 t, t < m. */

/* One 8-byte store each: its last 3 bytes land in the next record, written after. */
static inline void sashite_write_scalar(unsigned char *out, const uint64_t *records,
                                        const uint16_t *batch, Py_ssize_t m) {
    Py_ssize_t t;
    for (t = 0; t < m; t++)
        memcpy(out + 5 * t, &records[batch[t]], 8);
}

#ifdef SASHITE_EPIN_AVX2
/* Eight records by one gather from the table (32 KB: it stays in L1), packed to their
 * 40 bytes by one byte permute, one masked store. */
SASHITE_AVX512_TARGET
static inline void sashite_write_avx512(unsigned char *out, const uint64_t *records,
                                        const uint16_t *batch, Py_ssize_t m) {
    /* byte j of the 40 is byte j % 5 of record j / 5 */
    const __m512i pack = _mm512_set_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        60, 59, 58, 57, 56, 52, 51, 50, 49, 48, 44, 43, 42, 41, 40, 36, 35, 34, 33, 32,
        28, 27, 26, 25, 24, 20, 19, 18, 17, 16, 12, 11, 10, 9, 8, 4, 3, 2, 1, 0);
    Py_ssize_t t;
    for (t = 0; t + 8 <= m; t += 8) {
        __m256i at = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(batch + t)));
        __m512i r = _mm512_i32gather_epi64(at, (const void *)records, 8);
        _mm512_mask_storeu_epi8((void *)(out + 5 * t), (__mmask64)0xFFFFFFFFFFULL,
                                _mm512_permutexvar_epi8(pack, r));
    }
    sashite_write_scalar(out + 5 * t, records, batch + t, m - t);
}
#endif

/* ---- the rule on eight lanes -------------------------------------------------------
 * For readers that know where each token starts and how long it is, Arrow columns
 * (_columns.h) and str objects (_strs.h): sashite_key_record's rule on eight lengths
 * and 4-byte words at once, each entry checked against its own length, none waiting
 * on another. */

/* A build without AVX2 declares each lane reader by this: it writes nothing and
 * returns its parameter i, the first entry, so its caller's exact loop reads them all
 * (no kernel selects it there anyway). */
#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_NO_LANES(NAME, ...)                                                        \
    _Pragma("GCC diagnostic push")                                                         \
    _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                              \
    static Py_ssize_t NAME(__VA_ARGS__) { return i; }                                      \
    _Pragma("GCC diagnostic pop")
#else
#define SASHITE_NO_LANES(NAME, ...)                                                        \
    static Py_ssize_t NAME(__VA_ARGS__) { return i; }
#endif

/* A lane's 4 bytes, from any alignment. */
static inline int32_t sashite_load32(const unsigned char *p) {
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
 * written in one counted loop by a step 4 above, so the loads and checks of the next
 * groups do not wait on the stores: under AVX2 one record at a time, under AVX-512
 * eight by a gather and a byte permute. */
#define SASHITE_LANES_BATCH 512

/* The loop of such a reader, in a function with i (the first entry), count (where
 * the entries end), out (entry e's record goes to out + 5 * e), records and epin:
 * GROUP(i, &n, &w) loads the lengths and words of entries i..i+7, or returns 0 when
 * one of them is not for the lanes; PIN pins the constants (or not); NARROW packs
 * eight 32-bit indexes to 16 bits; WRITE is a step 4.  Returns the first entry it did
 * not write: the reader's exact loop goes on from there. */
#define SASHITE_LANES_LOOP(GROUP, PIN, NARROW, WRITE)                                      \
    {                                                                                      \
        uint16_t batch[SASHITE_LANES_BATCH];                                               \
        Py_ssize_t done = i, m = 0;                                                        \
        __m256i n, w, index;                                                               \
        sashite_keys8 keys = sashite_keys8_make();                                         \
        PIN(keys);                                                                         \
        for (; count - i >= 8; i += 8) {                                                   \
            if (!GROUP(i, &n, &w) || !sashite_keys8_avx2(n, w, epin, &index, &keys))      \
                break;                                                                     \
            _mm_storeu_si128((__m128i *)(batch + m), NARROW(index));                       \
            m += 8;                                                                        \
            if (m == SASHITE_LANES_BATCH) {                                                \
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
#endif

#ifdef SASHITE_EPIN_NEON
/* The same rule on NEON, four lanes a vector, two vectors a group of eight.  The
 * group loaders fill plain arrays (n: lengths, w: first 4 bytes), as the x86 loaders'
 * scalar loads do before their set; each half is checked and indexed as above: a
 * shift by 32 or more gives 0 in NEON as in AVX2, and a negative shift count shifts
 * right. */
static inline uint32x4_t sashite_keys4_neon(uint32x4_t n, uint32x4_t w, int epin,
                                            uint32x4_t *ok)
{
    const uint32x4_t byte = vdupq_n_u32(0xFF), eight = vdupq_n_u32(8);
    int32x4_t bits = vreinterpretq_s32_u32(vshlq_n_u32(n, 3));
    uint32x4_t key = vbicq_u32(w, vshlq_u32(vdupq_n_u32(0xFFFFFFFFu), bits));
    uint32x4_t first = vandq_u32(key, byte);
    uint32x4_t plus = vceqq_u32(first, vdupq_n_u32('+'));
    uint32x4_t minus = vceqq_u32(first, vdupq_n_u32('-'));
    uint32x4_t modified = vorrq_u32(plus, minus);
    uint32x4_t rest = vshlq_u32(key, vnegq_s32(vreinterpretq_s32_u32(vandq_u32(modified, eight))));
    uint32x4_t letter = vandq_u32(rest, byte);
    uint32x4_t is_letter = vcleq_u32(
        vsubq_u32(vorrq_u32(letter, vdupq_n_u32(0x20)), vdupq_n_u32('a')), vdupq_n_u32(25));
    uint32x4_t terminal = vceqq_u32(vandq_u32(vshrq_n_u32(rest, 8), byte), vdupq_n_u32('^'));
    uint32x4_t last = vandq_u32(vshlq_u32(key, vsubq_s32(vdupq_n_s32(8), bits)), byte);
    uint32x4_t derived = vceqq_u32(last, vdupq_n_u32('\''));
    /* the length the flags make: 1 + each flag (the masks are all ones where set) */
    uint32x4_t length = vsubq_u32(vsubq_u32(vsubq_u32(vdupq_n_u32(1), modified), terminal),
                                  derived);
    uint32x4_t flags = vorrq_u32(
        vorrq_u32(vandq_u32(plus, vdupq_n_u32(SASHITE_FLAG_PLUS)),
                  vandq_u32(minus, vdupq_n_u32(SASHITE_FLAG_MINUS))),
        vorrq_u32(vandq_u32(terminal, vdupq_n_u32(SASHITE_FLAG_TERMINAL)),
                  vandq_u32(derived, vdupq_n_u32(SASHITE_FLAG_DERIVED))));
    *ok = vandq_u32(vceqq_u32(length, n), is_letter);
    if (!epin) /* PIN has no derivation marker */
        *ok = vbicq_u32(*ok, derived);
    return vorrq_u32(letter, vshlq_n_u32(flags, 8));
}

/* Eight lanes: their record indexes to index[0..7] (written whatever the outcome);
 * whether all eight are tokens. */
static inline int sashite_keys8_neon(const uint32_t *n, const uint32_t *w, int epin,
                                     uint16_t *index)
{
    uint32x4_t ok0, ok1;
    uint32x4_t i0 = sashite_keys4_neon(vld1q_u32(n), vld1q_u32(w), epin, &ok0);
    uint32x4_t i1 = sashite_keys4_neon(vld1q_u32(n + 4), vld1q_u32(w + 4), epin, &ok1);
    vst1q_u16(index, vcombine_u16(vmovn_u32(i0), vmovn_u32(i1)));
    return vminvq_u32(vandq_u32(ok0, ok1)) == 0xFFFFFFFFu;
}

/* The loop of a NEON lane reader, as SASHITE_LANES_LOOP: GROUP(i, n, w) fills the
 * lengths and words of entries i..i+7 into n[8], w[8], or returns 0. */
#define SASHITE_LANES_BATCH_NEON 512
#define SASHITE_LANES_LOOP_NEON(GROUP)                                                     \
    {                                                                                      \
        uint16_t batch[SASHITE_LANES_BATCH_NEON];                                          \
        uint32_t n[8], w[8];                                                               \
        Py_ssize_t done = i, m = 0;                                                        \
        for (; count - i >= 8; i += 8) {                                                   \
            if (!GROUP(i, n, w) || !sashite_keys8_neon(n, w, epin, batch + m))             \
                break;                                                                     \
            m += 8;                                                                        \
            if (m == SASHITE_LANES_BATCH_NEON) {                                           \
                sashite_write_scalar(out + 5 * done, records, batch, m);                   \
                done += m, m = 0;                                                          \
            }                                                                              \
        }                                                                                  \
        sashite_write_scalar(out + 5 * done, records, batch, m);                           \
        return i;                                                                          \
    }
#endif

/* Whether a kernel has lane readers (lists of str, Arrow columns): AVX2, AVX-512 and
 * NEON; SSE2 has no per-lane shifts, which the rule needs. */
static inline int sashite_kernel_lanes(int kernel) {
    return sashite_kernel_avx2_loops(kernel) || kernel == SASHITE_KERNEL_NEON;
}

/* ---- decoding, the same code for every SIMD kernel -------------------------------- */

/* Record indexes wait in a batch, written out in one counted loop: no branch per token. */
#define SASHITE_BATCH 1024

/* Decode the tokens of p[*at..size-1] into out (5-byte records, 8 bytes writable at
 * each) from record index *k on, at most count records in all.  p[*at - 1] (if any)
 * must end a token or be a separator.  records: SASHITE_RECORD_INDEXES 8-byte records,
 * by letter byte | flags << 8.  On SASHITE_STOPPED, *at is the start of the first token
 * not written, *k its index and *bad the first byte the grammar refuses (size when the
 * buffer ends with a modifier); the exact scanner goes on from there and hands back
 * after the token holding *bad.  In the block that fails, the tokens before that one
 * are written: the checks look only backwards, so no byte before *bad breaks a rule. */
#define SASHITE_DEFINE_DECODE(NAME, ATTR, PREPARE, BLOCK, COMPRESS, WRITE)                       \
    ATTR static int NAME(const unsigned char *p, Py_ssize_t size, Py_ssize_t *at,          \
                         Py_ssize_t *k_at, Py_ssize_t count, unsigned char *out,           \
                         const uint64_t *records, int epin, Py_ssize_t *bad_at) {          \
        Py_ssize_t pos = *at, k = *k_at, n, m = 0, t;                                     \
        unsigned char pad[1 + 64 + 16];                                                   \
        uint16_t index[64], batch[SASHITE_BATCH + 32 + 8];                                \
        sashite_classes c;                                                                \
        unsigned char before = pos > 0 ? p[pos - 1] : ' ';                                \
        /* the classes of the byte before a block, as bit 0 of the shifted masks */        \
        uint64_t was_sep = sashite_is_sep(before), was_modifier = before == '+' || before == '-', \
                 was_letter = (unsigned char)((before | 0x20) - 'a') < 26,                 \
                 was_caret = before == '^';                                               \
        int status = SASHITE_DECODED;                                                     \
        PREPARE                                                                           \
        while (pos < size) {                                                              \
            const unsigned char *q = p + pos;                                             \
            uint64_t bad, after_sep, after_letter;                                        \
            if (pos == 0 || size - pos < 66) { /* q[-1] .. q[65] must be readable */       \
                n = size - pos < 66 ? size - pos : 66;                                    \
                memset(pad, 32, sizeof pad);                                              \
                pad[0] = before;                                                          \
                memcpy(pad + 1, p + pos, (size_t)n);                                      \
                q = pad + 1;                                                              \
            }                                                                             \
            BLOCK(q, &c, index);                                                          \
            if (!epin)                                                                    \
                c.apostrophe = 0; /* no class: fails the check below */                   \
            after_sep = c.sep << 1 | was_sep;                                             \
            after_letter = c.letter << 1 | was_letter;                                    \
            bad = ~(c.sep | c.modifier | c.letter | c.caret | c.apostrophe)               \
                  | (c.modifier & ~after_sep)                                             \
                  | (c.letter & ~(after_sep | c.modifier << 1 | was_modifier))            \
                  | (c.caret & ~after_letter)                                             \
                  | (c.apostrophe & ~(after_letter | c.caret << 1 | was_caret))           \
                  | (c.sep & (c.modifier << 1 | was_modifier));                           \
            if (bad) {                                                                    \
                /* the tokens before the one holding the first refused byte r: each */     \
                /* ends with a separator before r, after which the failing token starts */ \
                int r = sashite_ctz64(bad);                                               \
                uint64_t seps = c.sep & ((UINT64_C(1) << r) - 1), before_token;           \
                *bad_at = pos + r;                                                        \
                status = SASHITE_STOPPED;                                                 \
                if (seps) {                                                               \
                    r = sashite_top64(seps) + 1;                                          \
                    before_token = c.letter & ((UINT64_C(1) << r) - 1);                   \
                    if (sashite_popcount64(before_token) > count - k - m)                 \
                        return SASHITE_OVERFLOW;                                          \
                    m += COMPRESS(index, before_token, batch + m);                        \
                    pos += r;                                                             \
                }                                                                         \
                break;                                                                    \
            }                                                                             \
            if (count - k - m < 32 && sashite_popcount64(c.letter) > count - k - m)       \
                return SASHITE_OVERFLOW;                                                  \
            m += COMPRESS(index, c.letter, batch + m);                                    \
            if (m >= SASHITE_BATCH) {                                                     \
                WRITE(out + 5 * k, records, batch, m);                                    \
                k += m, m = 0;                                                            \
            }                                                                             \
            was_sep = c.sep >> 63, was_modifier = c.modifier >> 63;                       \
            was_letter = c.letter >> 63, was_caret = c.caret >> 63;                       \
            before = q[63];                                                               \
            pos += 64;                                                                    \
        }                                                                                 \
        WRITE(out + 5 * k, records, batch, m);                                            \
        k += m;                                                                           \
        if (status == SASHITE_DECODED && !was_modifier) {                                 \
            *at = size, *k_at = k;                                                        \
            return SASHITE_DECODED;                                                       \
        }                                                                                 \
        if (status == SASHITE_DECODED) /* a buffer ending with a modifier */              \
            *bad_at = size;                                                               \
        if (pos > size) /* a buffer ending with a modifier: the scanner says so */         \
            pos = size;                                                                   \
        /* Back to the start of the token crossing into this block (at most 4 bytes); */  \
        /* it was written already if its letter lies before the block. */                  \
        n = pos;                                                                          \
        while (n > *at && !sashite_is_sep(p[n - 1]))                                      \
            n--;                                                                          \
        for (t = n; t < pos; t++)                                                         \
            k -= (unsigned char)((p[t] | 0x20) - 'a') < 26;                               \
        *at = n, *k_at = k;                                                               \
        return SASHITE_STOPPED;                                                           \
    }

/* scan_many's block loop (_text_c.pxi): tokens written back to back, other bytes
 * between them skipped.  Per 64-byte block, the same classes and record indexes; the
 * block is taken when every '^' follows a letter, every '\'' (EPIN only) a letter or
 * an accepted '^', and every modifier precedes a letter, exactly what scan_many's
 * greedy scan accepts.  Each letter is then one token: its index gives its code
 * (code_of) and whether a modifier starts it.  A token belongs to the block where it
 * starts, as in scan_many's own loop (so either can go on from the other): one whose
 * modifier ends a block is written with that block, its letter then skipped.  Stops
 * before a block that fails, one that would overflow room, or the last 72 bytes
 * (scan_many's own loop reads those); returns the tokens written, *b_at the block it
 * stopped at and *resume_at the end of the last token written. */
#define SASHITE_DEFINE_SCAN(NAME, ATTR, BLOCK)                                             \
    ATTR static Py_ssize_t NAME(const unsigned char *p, Py_ssize_t n, int epin,             \
                                const uint16_t *code_of, uint16_t *codes,                    \
                                Py_ssize_t *starts, Py_ssize_t room, Py_ssize_t *b_at,       \
                                Py_ssize_t *resume_at) {                                     \
        Py_ssize_t b = 0, k = 0, resume = 0;                                                 \
        unsigned char pad[1 + 64 + 8];                                                       \
        uint16_t index[64];                                                                  \
        sashite_classes c;                                                                   \
        uint64_t was_letter = 0, was_caret = 0, was_modifier = 0, letters, next_letter,      \
                 before_letter, last_modifier;                                               \
        /* PIN has no derivation marker: a '\'' is another byte, never a flag */            \
        unsigned keep = epin ? 0xFFFFu : 0xFFFFu & ~(SASHITE_FLAG_DERIVED << 8);            \
        while (n - b >= 64 + 8) {                                                            \
            const unsigned char *q = p + b;                                                  \
            if (b == 0) { /* q[-1] must be readable: nothing stands before the text */       \
                pad[0] = 0;                                                                  \
                memcpy(pad + 1, p, 64 + 8);                                                  \
                q = pad + 1;                                                                 \
            }                                                                                \
            BLOCK(q, &c, index);                                                             \
            if (!epin)                                                                       \
                c.apostrophe = 0;                                                            \
            before_letter = c.letter << 1 | was_letter;                                      \
            next_letter = (unsigned char)((q[64] | 0x20) - 'a') < 26;                        \
            letters = c.letter & ~was_modifier; /* a letter at 0 came with its modifier */   \
            last_modifier = c.modifier >> 63;                                                \
            if ((c.caret & ~before_letter)                                                   \
                | (c.apostrophe & ~(before_letter | c.caret << 1 | was_caret))               \
                | (c.modifier & ~(c.letter >> 1 | next_letter << 63))                        \
                || sashite_popcount64(letters) + (Py_ssize_t)last_modifier > room - k)       \
                break;                                                                       \
            if (letters) { /* the end of the block's last token, unless one follows */      \
                int t = sashite_top64(letters);                                              \
                unsigned i = index[t] & keep;                                                \
                resume = b + t + 1 + (i >> 8 & SASHITE_FLAG_TERMINAL ? 1 : 0)                \
                         + (i >> 8 & SASHITE_FLAG_DERIVED ? 1 : 0);                          \
            }                                                                                \
            while (letters) {                                                                \
                int t = sashite_ctz64(letters);                                              \
                unsigned i = index[t] & keep;                                                \
                letters &= letters - 1;                                                      \
                codes[k] = code_of[i];                                                       \
                starts[k] = b + t - ((i >> 8 & (SASHITE_FLAG_PLUS | SASHITE_FLAG_MINUS)) != 0); \
                k++;                                                                         \
            }                                                                                \
            if (last_modifier) { /* its letter is q[64]; q[65], q[66] say the rest */        \
                unsigned terminal = q[65] == '^';                                            \
                unsigned derived = epin && (q[65 + terminal] == '\'');                       \
                unsigned i = q[64] | ((q[63] == '+' ? SASHITE_FLAG_PLUS : SASHITE_FLAG_MINUS) \
                                      | terminal * SASHITE_FLAG_TERMINAL                     \
                                      | derived * SASHITE_FLAG_DERIVED) << 8;                \
                codes[k] = code_of[i];                                                       \
                starts[k] = b + 63;                                                          \
                k++;                                                                         \
                resume = b + 65 + terminal + derived;                                        \
            }                                                                                \
            was_letter = c.letter >> 63, was_caret = c.caret >> 63;                          \
            was_modifier = last_modifier;                                                    \
            b += 64;                                                                         \
        }                                                                                    \
        *b_at = b, *resume_at = resume;                                                      \
        return k;                                                                            \
    }

#ifdef SASHITE_EPIN_SSE2
SASHITE_DEFINE_COUNT(sashite_count_sse2, , sashite_sep_mask64, sashite_popcount64)
SASHITE_DEFINE_DECODE(sashite_decode_sse2, , , sashite_block_sse2, sashite_compress_scalar,
                      sashite_write_scalar)
SASHITE_DEFINE_SCAN(sashite_scan_sse2, , sashite_block_sse2)
#endif
#ifdef SASHITE_EPIN_AVX2
SASHITE_DEFINE_COUNT(sashite_count_avx2, SASHITE_AVX2_TARGET, sashite_sep_mask64_avx2,
                     SASHITE_POPCNT64)
SASHITE_DEFINE_DECODE(sashite_decode_avx2, SASHITE_AVX2_TARGET, , sashite_block_avx2,
                      sashite_compress_avx2, sashite_write_scalar)
SASHITE_DEFINE_SCAN(sashite_scan_avx2, SASHITE_AVX2_TARGET, sashite_block_avx2)
SASHITE_DEFINE_COUNT(sashite_count_avx512, SASHITE_AVX512_TARGET, sashite_sep_mask64_avx512,
                     SASHITE_POPCNT64)
SASHITE_DEFINE_DECODE(sashite_decode_avx512, SASHITE_AVX512_TARGET, SASHITE_PREPARE_AVX512,
                      SASHITE_BLOCK_AVX512, sashite_compress_avx512, sashite_write_avx512)
#endif
#ifdef SASHITE_EPIN_NEON
SASHITE_DEFINE_COUNT(sashite_count_neon, , sashite_sep_mask64, sashite_popcount64)
SASHITE_DEFINE_DECODE(sashite_decode_neon, , , sashite_block_neon, sashite_compress_scalar,
                      sashite_write_scalar)
SASHITE_DEFINE_SCAN(sashite_scan_neon, , sashite_block_neon)
#endif

typedef Py_ssize_t (*sashite_count_fn)(const unsigned char *, Py_ssize_t);
typedef int (*sashite_decode_fn)(const unsigned char *, Py_ssize_t, Py_ssize_t *, Py_ssize_t *,
                                 Py_ssize_t, unsigned char *, const uint64_t *, int,
                                 Py_ssize_t *);
typedef Py_ssize_t (*sashite_scan_fn)(const unsigned char *, Py_ssize_t, int, const uint16_t *,
                                      uint16_t *, Py_ssize_t *, Py_ssize_t, Py_ssize_t *,
                                      Py_ssize_t *);

#ifdef SASHITE_EPIN_AVX2
/* CPUID and XGETBV: how MSVC and clang-cl builds ask the CPU (GCC and clang ask
 * __builtin_cpu_supports; the tests check on those builds that both agree).  An
 * extension runs when the CPU has it and the system saves its registers on a context
 * switch (XCR0: bits 1-2 the SSE and AVX state, bits 5-7 AVX-512's). */
#if defined(_MSC_VER)
#define SASHITE_CPUID(r, leaf) __cpuidex((int *)(r), (leaf), 0)
#else
#include <cpuid.h>
#define SASHITE_CPUID(r, leaf) __cpuid_count((leaf), 0, (r)[0], (r)[1], (r)[2], (r)[3])
#endif
enum {
    SASHITE_CPU_AVX2 = 1,  /* AVX2, POPCNT and BMI1 */
    SASHITE_CPU_AVX512 = 2 /* and AVX-512 F, BW, VL, VBMI and VBMI2 */
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
    return (xcr0 & 0xE0) == 0xE0 && (leaf7[1] & (1u << 16)) /* AVX-512 F */
           && (leaf7[1] & (1u << 30)) && (leaf7[1] & (1u << 31)) /* BW, VL */
           && (leaf7[2] & (1u << 1)) && (leaf7[2] & (1u << 6)); /* VBMI, VBMI2 */
}
#endif

/* Whether CPUID and XGETBV say the CPU runs an x86 kernel of this build (AVX2 or
 * AVX-512; 0 for any other). */
static inline int sashite_cpuid_runs(int kernel) {
#ifdef SASHITE_EPIN_AVX2
    if (kernel == SASHITE_KERNEL_AVX2)
        return sashite_cpu_has(SASHITE_CPU_AVX2);
    if (kernel == SASHITE_KERNEL_AVX512)
        return sashite_cpu_has(SASHITE_CPU_AVX512);
#endif
    (void)kernel;
    return 0;
}

/* Whether this build and this CPU can run a kernel. */
static int sashite_kernel_runs(int kernel) {
    switch (kernel) {
    case SASHITE_KERNEL_PORTABLE:
        return 1;
#ifdef SASHITE_EPIN_SSE2
    case SASHITE_KERNEL_SSE2:
        return 1;
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON: /* part of aarch64's baseline */
        return 1;
#endif
#ifdef SASHITE_EPIN_MSVC_CPUID
    case SASHITE_KERNEL_AVX2:
        return sashite_cpu_has(SASHITE_CPU_AVX2);
    case SASHITE_KERNEL_AVX512:
        return sashite_cpu_has(SASHITE_CPU_AVX512);
#elif defined(SASHITE_EPIN_AVX2)
    case SASHITE_KERNEL_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")
               && __builtin_cpu_supports("bmi");
    case SASHITE_KERNEL_AVX512:
        __builtin_cpu_init();
        return sashite_kernel_runs(SASHITE_KERNEL_AVX2) && __builtin_cpu_supports("avx512f")
               && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
               && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2");
#endif
    default:
        return 0;
    }
}

static sashite_count_fn sashite_count_kernel(int kernel) {
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return sashite_count_avx512;
    case SASHITE_KERNEL_AVX2:
        return sashite_count_avx2;
#endif
#ifdef SASHITE_EPIN_SSE2
    case SASHITE_KERNEL_SSE2:
        return sashite_count_sse2;
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON:
        return sashite_count_neon;
#endif
    default:
        return sashite_count_portable;
    }
}

static sashite_decode_fn sashite_decode_kernel(int kernel) {
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512:
        return sashite_decode_avx512;
    case SASHITE_KERNEL_AVX2:
        return sashite_decode_avx2;
#endif
#ifdef SASHITE_EPIN_SSE2
    case SASHITE_KERNEL_SSE2:
        return sashite_decode_sse2;
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON:
        return sashite_decode_neon;
#endif
    default:
        return SASHITE_DECODE_PORTABLE;
    }
}

/* scan_many's block loop for a kernel; NULL for portable (scan_many's own loop). */
static sashite_scan_fn sashite_scan_kernel(int kernel) {
    switch (kernel) {
#ifdef SASHITE_EPIN_AVX2
    case SASHITE_KERNEL_AVX512: /* its block compresses: scan_many reads by position */
    case SASHITE_KERNEL_AVX2:
        return sashite_scan_avx2;
#endif
#ifdef SASHITE_EPIN_SSE2
    case SASHITE_KERNEL_SSE2:
        return sashite_scan_sse2;
#endif
#ifdef SASHITE_EPIN_NEON
    case SASHITE_KERNEL_NEON:
        return sashite_scan_neon;
#endif
    default:
        return NULL;
    }
}

#endif
