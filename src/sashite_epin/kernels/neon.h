/* The NEON kernel: part of aarch64's baseline, so chosen at compile time there (Apple
 * Silicon, Graviton, Linux and Windows on ARM).  Step 1 on four 16-byte vectors, the
 * masks by sashite_neon_mask64 (_split.h); steps 3 and 4 one token at a time; the
 * rule on eight lanes for the lane readers; the shared loops (generic/) do the
 * rest. */
#ifndef SASHITE_EPIN_KERNEL_NEON_H
#define SASHITE_EPIN_KERNEL_NEON_H

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

/* The rule on eight lanes on NEON, four lanes a vector, two vectors a group of eight.
 * The group loaders fill plain arrays (n: lengths, w: first 4 bytes), as the x86
 * loaders' scalar loads do before their set; each half is checked and indexed as
 * sashite_keys8_avx2 does (kernels/avx2.h): a shift by 32 or more gives 0 in NEON as
 * in AVX2, and a negative shift count shifts right. */
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

/* What the lane readers' loop (generic/lanes.h) declares under this kernel: the
 * group's lengths and words, filled by its loaders. */
#define SASHITE_LANES_STATE_NEON uint32_t n[8], w[8];

#define SASHITE_NAMED(f) f##_neon
#define SASHITE_TARGET
#define SASHITE_SEP_MASK sashite_sep_mask64
#define SASHITE_POPCOUNT sashite_popcount64
#define SASHITE_PREPARE
#define SASHITE_BLOCK sashite_block_neon
#define SASHITE_COMPRESS sashite_compress_scalar
#define SASHITE_WRITE sashite_write_scalar
#include "generic/count.h"
#include "generic/decode.h"
#include "generic/scan.h"
#include "generic/rows.h"
#include "generic/undef.h"

static const sashite_kernel sashite_kernel_neon = {
    "neon", sashite_always, sashite_count_neon, sashite_decode_neon,
    sashite_scan_neon, sashite_rows_neon};
#else
static const sashite_kernel sashite_kernel_neon = {
    "neon", sashite_never, NULL, NULL, NULL, NULL};
#endif

#endif
