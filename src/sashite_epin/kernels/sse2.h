/* The SSE2 kernel: every x86-64 CPU has it (part of the baseline), so a build for
 * x86-64 always runs it, and it is the best kernel there when the CPU has no AVX2.
 * Step 1 on four 16-byte vectors, the masks by movemask; steps 3 and 4 one token at a
 * time; the shared loops (generic/) do the rest. */
#ifndef SASHITE_EPIN_KERNEL_SSE2_H
#define SASHITE_EPIN_KERNEL_SSE2_H

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

#define SASHITE_NAMED(f) f##_sse2
#define SASHITE_TARGET
#define SASHITE_SEP_MASK sashite_sep_mask64
#define SASHITE_POPCOUNT sashite_popcount64
#define SASHITE_PREPARE
#define SASHITE_BLOCK sashite_block_sse2
#define SASHITE_COMPRESS sashite_compress_scalar
#define SASHITE_WRITE sashite_write_scalar
#include "generic/count.h"
#include "generic/decode.h"
#include "generic/marks.h"
#include "generic/scan.h"
#include "generic/rows.h"
#include "generic/undef.h"

static const sashite_kernel sashite_kernel_sse2 = {
    "sse2", sashite_always, sashite_count_sse2, sashite_decode_sse2,
    sashite_scan_sse2, sashite_rows_sse2};
#else
static const sashite_kernel sashite_kernel_sse2 = {
    "sse2", sashite_never, NULL, NULL, NULL, NULL};
#endif

#endif
