/* The AVX-512 kernel, on x86-64 CPUs that have AVX-512 F, BW, VL, VBMI and VBMI2
 * besides what AVX2's needs (chosen at run time): built wherever the AVX2 kernel is,
 * on what avx2.h defines.  scan_many's block loop and the lane readers' group loaders
 * are AVX2's, run here with 32 vector registers; tokenize_many's rows loop is its own. */
#ifndef SASHITE_EPIN_KERNEL_AVX512_H
#define SASHITE_EPIN_KERNEL_AVX512_H

#ifdef SASHITE_EPIN_AVX2
/* AVX-512 (BW for byte compares into mask registers, VBMI2 for byte compress, VBMI
 * for the byte permute that packs records): the whole block in one register, each
 * class one compare into a 64-bit mask, no movemask.  Its block hands the letters'
 * record indexes already in token order: index[0..31] are those of the block's first
 * 32 letters (a block that passes step 2 has at most 32: each token but one ends
 * with a separator inside the block), compressed from the letter bytes and their
 * flag bytes.  So its step 3 is a copy.  scan_many reads indexes by byte position:
 * under this kernel it runs the AVX2 block loop (its sashite_kernel entry below). */
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

/* The AVX-512 block compressed already: 32 entries (64 bytes) in one copy. */
SASHITE_AVX512_TARGET
static inline int sashite_compress_avx512(const uint16_t *index, uint64_t letters,
                                          uint16_t *to) {
    _mm512_storeu_si512((void *)to, _mm512_loadu_si512((const void *)index));
    return (int)_mm_popcnt_u64(letters);
}

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

SASHITE_AVX512_TARGET
static inline __m128i sashite_narrow_avx512(__m256i x)
{
    return _mm256_cvtepi32_epi16(x);
}

/* sashite_index8_avx2 under this kernel: one narrowing instruction. */
SASHITE_AVX512_TARGET
static inline int sashite_index8_avx512(__m256i n, __m256i w, int epin,
                                        const sashite_keys8 *k, uint16_t *to)
{
    __m256i index;
    if (!sashite_keys8_avx2(n, w, epin, &index, k))
        return 0;
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx512(index));
    return 1;
}

SASHITE_AVX512_TARGET
static inline void sashite_mark8_avx512(__m256i n, __m256i w, int epin,
                                        const sashite_keys8 *k, uint16_t *to, unsigned valid,
                                        Py_ssize_t at, Py_ssize_t *marks, Py_ssize_t *m)
{
    __m256i index = sashite_mark8_index_avx2(n, w, epin, k, valid, at, marks, m);
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx512(index));
}

/* sashite_mark8_avx2 with no loop per refused lane: their positions compressed and
 * written eight a store (marks has room for 8 past the last): a numpy StringDType
 * column half missing or half invalid refuses four lanes of eight, and the loop's
 * branch on each mispredicted. */
SASHITE_AVX512_TARGET
static inline void sashite_mark8_room_avx512(__m256i n, __m256i w, int epin,
                                             const sashite_keys8 *k, uint16_t *to,
                                             unsigned valid, Py_ssize_t at,
                                             Py_ssize_t *marks, Py_ssize_t *m)
{
    __m256i index;
    __m256i ok = sashite_rule8_avx2(n, w, epin, &index, k);
    __mmask8 refused = (__mmask8)(~(valid & (unsigned)_mm256_movemask_ps(
                                                         _mm256_castsi256_ps(ok))));
    __m512i position = _mm512_add_epi64(_mm512_set1_epi64(at),
                                        _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    _mm512_storeu_si512((void *)(marks + *m), _mm512_maskz_compress_epi64(refused, position));
    *m += SASHITE_POPCNT64(refused);
    index = _mm256_maskz_mov_epi32((__mmask8)~refused, index);
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx512(index));
}

/* sashite_mark8_keys_avx2 with no loop per refused lane: their positions and words
 * compressed and written eight a store (marks and keys have room for 8 past the
 * last), whether or not any lane is refused. */
SASHITE_AVX512_TARGET
static inline void sashite_mark8_keys_avx512(__m256i n, __m256i w, int epin,
                                             const sashite_keys8 *k, uint16_t *to,
                                             Py_ssize_t at, Py_ssize_t *marks, uint32_t *keys,
                                             Py_ssize_t *m)
{
    __m256i index;
    __m256i ok = sashite_rule8_avx2(n, w, epin, &index, k);
    __mmask8 refused = (__mmask8)~_mm256_movemask_ps(_mm256_castsi256_ps(ok));
    __m512i position = _mm512_add_epi64(_mm512_set1_epi64(at),
                                        _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    _mm512_storeu_si512((void *)(marks + *m), _mm512_maskz_compress_epi64(refused, position));
    _mm256_storeu_si256((__m256i *)(keys + *m), _mm256_maskz_compress_epi32(refused, w));
    *m += SASHITE_POPCNT64(refused);
    _mm_storeu_si128((__m128i *)to, sashite_narrow_avx512(_mm256_and_si256(index, ok)));
}

/* What the lane readers' loop declares under this kernel: AVX2's, the constants pinned
 * to registers (32 of them here). */
#define SASHITE_LANES_STATE_AVX512                                                         \
    __m256i n, w;                                                                          \
    sashite_keys8 keys = sashite_keys8_make();                                             \
    SASHITE_PIN_KEYS(keys);

static int sashite_runs_avx512(void) { return sashite_cpu_has(SASHITE_CPU_AVX512); }

#define SASHITE_NAMED(f) f##_avx512
#define SASHITE_TARGET SASHITE_AVX512_TARGET
#define SASHITE_SEP_MASK sashite_sep_mask64_avx512
#define SASHITE_POPCOUNT SASHITE_POPCNT64
#define SASHITE_PREPARE SASHITE_PREPARE_AVX512
#define SASHITE_BLOCK SASHITE_BLOCK_AVX512
#define SASHITE_COMPRESS sashite_compress_avx512
#define SASHITE_WRITE sashite_write_avx512
#include "generic/count.h"
#include "generic/decode.h"
#include "generic/undef.h"

#if defined(__GNUC__) || defined(__clang__)
#define SASHITE_AVX512_BMI2_TARGET                                                          \
    __attribute__((target(                                                                  \
        "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx2,popcnt,bmi,bmi2")))
#else
#define SASHITE_AVX512_BMI2_TARGET
#endif

/* Whether the CPU has BMI2 (PDEP, PEXT), which the AVX-512 marking loop takes: every
 * CPU with AVX-512 VBMI2 has, but a virtual machine may hide it. */
static int sashite_runs_bmi2(void) { return sashite_cpu_has(SASHITE_CPU_BMI2); }

/* kernels/generic/marks.h's loop, its marks found without a loop per marked token:
 * every CPU with AVX-512 VBMI2 has a fast PDEP / PEXT (BMI2; AVX2's loop runs where
 * it is hidden).  Per block, as there:
 * the tokens up to the last separator, the refused ones found by a carry.  Then the
 * carry of the whole token bytes from each first refused byte lands on the separator
 * after its token (c1); PEXT of c1 over the tokens' end separators gives which of the
 * block's tokens are refused (bit j for its j-th), PDEP of that over their starts
 * where they start, and c1 less those starts all their bytes.  Their record indexes
 * and offsets are compressed from a byte iota, eight written a store: the ordinal j
 * of each and its start. */
SASHITE_AVX512_BMI2_TARGET static int sashite_decode_marks_avx512(
    const unsigned char *p, Py_ssize_t size, Py_ssize_t *at, Py_ssize_t *k_at,
    Py_ssize_t count, unsigned char *out, const uint64_t *records, int epin,
    sashite_byte_marks *marks, Py_ssize_t *bad_at) {
    Py_ssize_t pos = *at, k = *k_at, m = 0, nm = marks->count;
    unsigned char pad[SASHITE_PAD], ordinal[64 + 8], start_at[64 + 8];
    uint16_t batch[SASHITE_BATCH + 64 + 8];
    int status = SASHITE_DECODED;
    const __m512i iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44,
        43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24,
        23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    SASHITE_PREPARE_AVX512
    while (pos < size) {
        /* bytes past the buffer's end are separators (the pad's) */
        const unsigned char *q = sashite_block_at(p, size, pos, ' ', pad);
        __m512i v = _mm512_loadu_si512((const void *)q);
        __m512i prev = _mm512_loadu_si512((const void *)(q - 1));
        __m512i next = _mm512_loadu_si512((const void *)(q + 1));
        __m512i after = _mm512_loadu_si512((const void *)(q + 2));
        __m512i flags, low, high;
        uint64_t sep, modifier, letter, caret, apostrophe, nonsep, bad, starts, slots, reach;
        uint64_t refused_starts = 0, terminal, derived;
        int last;
        sep = (uint64_t)sashite_sep_k512(v, &k512);
        if (!sep) { /* a token of 64 bytes or more: the exact scanner's */
            status = SASHITE_STOPPED;
            break;
        }
        modifier = (uint64_t)(_mm512_cmpeq_epi8_mask(v, k512.plus)
                              | _mm512_cmpeq_epi8_mask(v, k512.minus));
        letter = (uint64_t)_mm512_cmple_epu8_mask(
            _mm512_sub_epi8(_mm512_or_si512(v, k512.low), k512.a), k512.z);
        caret = (uint64_t)_mm512_cmpeq_epi8_mask(v, k512.caret);
        apostrophe = epin ? (uint64_t)_mm512_cmpeq_epi8_mask(v, k512.apos) : 0;
        last = sashite_top64(sep);
        reach = (UINT64_C(2) << last) - 1; /* bytes 0..last; all 64 when last is 63 */
        nonsep = ~sep;
        bad = ~(sep | modifier | letter | caret | apostrophe)
              | (modifier & ~(sep << 1 | 1))
              | (letter & ~(sep << 1 | 1 | modifier << 1))
              | (caret & ~(letter << 1))
              | (apostrophe & ~(letter << 1 | caret << 1))
              | (sep & modifier << 1);
        bad = ((bad & nonsep) | (bad & sep) >> 1) & reach;
        starts = nonsep & ~(nonsep << 1) & reach;
        slots = letter & reach;
        if (count - k - m < 32 && SASHITE_POPCNT64(starts) > count - k - m)
            return SASHITE_OVERFLOW; /* one record a token */
        if (bad) {
            uint64_t taken = nonsep & ~bad & reach;
            uint64_t first = (taken + starts) & ~taken & nonsep;
            uint64_t c1 = (nonsep + first) & sep;
            uint64_t ends = sep & (nonsep << 1) & reach;
            uint64_t refused_tokens = _pext_u64(c1, ends);
            int n = SASHITE_POPCNT64(c1), t;
            refused_starts = _pdep_u64(refused_tokens, starts);
            slots = (slots & ~(c1 - refused_starts)) | refused_starts;
            _mm512_storeu_si512((void *)ordinal,
                                _mm512_maskz_compress_epi8(refused_tokens, iota));
            _mm512_storeu_si512((void *)start_at,
                                _mm512_maskz_compress_epi8(refused_starts, iota));
            for (t = 0; t < n; t += 8) {
                __m512i o = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(ordinal + t)));
                __m512i s = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(start_at + t)));
                _mm512_storeu_si512((void *)(marks->index + nm + t),
                                    _mm512_add_epi64(o, _mm512_set1_epi64(k + m)));
                _mm512_storeu_si512((void *)(marks->start + nm + t),
                                    _mm512_add_epi64(s, _mm512_set1_epi64(pos)));
            }
            nm += n;
        }
        /* each byte's record index (its byte, its flags above), the refused tokens'
         * starts 0 (the zero record), compressed at the slots */
        terminal = (uint64_t)_mm512_cmpeq_epi8_mask(next, k512.caret);
        derived = (uint64_t)_mm512_cmpeq_epi8_mask(next, k512.apos)
                  | (terminal & (uint64_t)_mm512_cmpeq_epi8_mask(after, k512.apos));
        flags = _mm512_maskz_mov_epi8(_mm512_cmpeq_epi8_mask(prev, k512.plus), k512.f_plus);
        flags = _mm512_mask_mov_epi8(flags, _mm512_cmpeq_epi8_mask(prev, k512.minus),
                                     k512.f_minus);
        flags = _mm512_mask_add_epi8(flags, (__mmask64)terminal, flags, k512.f_term);
        flags = _mm512_mask_add_epi8(flags, (__mmask64)derived, flags, k512.f_der);
        low = _mm512_or_si512(
            _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v)),
            _mm512_slli_epi16(_mm512_cvtepu8_epi16(_mm512_castsi512_si256(flags)), 8));
        high = _mm512_or_si512(
            _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(v, 1)),
            _mm512_slli_epi16(_mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(flags, 1)), 8));
        low = _mm512_maskz_mov_epi16((__mmask32)~refused_starts, low);
        high = _mm512_maskz_mov_epi16((__mmask32)(~refused_starts >> 32), high);
        _mm512_storeu_si512((void *)(batch + m),
                            _mm512_maskz_compress_epi16((__mmask32)slots, low));
        _mm512_storeu_si512((void *)(batch + m + SASHITE_POPCNT64(slots & 0xFFFFFFFFu)),
                            _mm512_maskz_compress_epi16((__mmask32)(slots >> 32), high));
        m += SASHITE_POPCNT64(slots);
        if (m >= SASHITE_BATCH) {
            sashite_write_avx512(out + 5 * k, records, batch, m);
            k += m, m = 0;
        }
        pos += last + 1;
    }
    sashite_write_avx512(out + 5 * k, records, batch, m);
    k += m;
    if (pos > size)
        pos = size;
    marks->count = nm;
    *at = pos, *k_at = k;
    if (status == SASHITE_STOPPED)
        *bad_at = pos;
    return status;
}

/* tokenize_many's block loop (_text_c.pxi, scan_rows): the texts of a piece written
 * back to back, each followed by a byte that is no token's (a newline), row r holding
 * p[row_start[r] .. row_start[r + 1] - 1].  What scan_many's block loop does, and in
 * the same pass what tokenize_many keeps of each token: its record (out + 5 k), its
 * offset inside its row (offsets[k]), and for each row the index of its first token
 * (row_offsets[r]).  A token belongs to the block of its letter (a modifier before it
 * may end the block before): its record's index comes from the letter and the bytes
 * around it, its offset from the letter's position less one for a modifier.  So the
 * block compresses the letters, their flags and their in-row positions once, each as
 * one byte per token, and writes eight tokens a gather and a store.
 *
 * Starts at pos (0 or a row's start: p[pos - 1], if any, is no token's byte; *row is
 * the row holding pos) and stops before the last 72 bytes of p[0..n-1], or in the first
 * block the grammar refuses (the checks of scan.h) once it took that block's tokens
 * but the one that may hold the first refused byte (a refused row costs scan_many one
 * token, not a block of them).  Returns the new k; *row is then the row holding the
 * last byte taken, row_offsets set for the rows up to it, and *resume_at the end of
 * the last token written (pos if none): scan_many goes on from there.  Room for a
 * token per byte of p[pos..n-1] from k, and 64 more, is the caller's. */
SASHITE_AVX512_TARGET static Py_ssize_t sashite_rows_avx512(
    const unsigned char *p, Py_ssize_t n, Py_ssize_t pos, int epin, const uint64_t *records,
    const int64_t *row_start, Py_ssize_t *row, int64_t *row_offsets, unsigned char *out,
    int64_t *offsets, Py_ssize_t k, Py_ssize_t *resume_at) {
    /* index byte pairs: letter j, then its flags, for letters 0-31 and 32-63 */
    const __m512i pairs_lo = _mm512_set_epi8(
        95, 31, 94, 30, 93, 29, 92, 28, 91, 27, 90, 26, 89, 25, 88, 24, 87, 23, 86, 22,
        85, 21, 84, 20, 83, 19, 82, 18, 81, 17, 80, 16, 79, 15, 78, 14, 77, 13, 76, 12,
        75, 11, 74, 10, 73, 9, 72, 8, 71, 7, 70, 6, 69, 5, 68, 4, 67, 3, 66, 2, 65, 1, 64, 0);
    const __m512i pairs_hi = _mm512_add_epi8(pairs_lo, _mm512_set1_epi8(32));
    const __m512i iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44,
        43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24,
        23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    /* a letter's position + 1, marked (bit 7) as before the block's first row start */
    const __m512i before_row = _mm512_or_si512(_mm512_add_epi8(iota, _mm512_set1_epi8(1)),
                                               _mm512_set1_epi8((char)0x80));
    const __m512i one = _mm512_set1_epi8(1);
    const __m512i low7 = _mm512_set1_epi64(0x7F), mark = _mm512_set1_epi64(0x80);
    Py_ssize_t b = pos, r = *row, m = 0, resume = pos;
    int64_t row_at = row_start[r], next_row = row_start[r + 1];
    unsigned char pad[1 + 64 + 8], at[64 + 8];
    uint16_t batch[SASHITE_BATCH + 64 + 8];
    uint64_t was_letter = 0, was_caret = 0, epin_mask = epin ? ~UINT64_C(0) : 0;
    SASHITE_PREPARE_AVX512
    while (n - b >= 64 + 8) {
        const unsigned char *q = sashite_text_block(p, b, pad);
        __m512i v, prev, next, after, flags, d, letters_c, flags_c, base;
        __mmask64 letter, caret, apostrophe, modifier, terminal, derived, modified;
        Py_ssize_t count, t, stop = 64;
        uint64_t refused;
        int top;
        v = _mm512_loadu_si512((const void *)q);
        prev = _mm512_loadu_si512((const void *)(q - 1));
        next = _mm512_loadu_si512((const void *)(q + 1));
        after = _mm512_loadu_si512((const void *)(q + 2));
        letter = _mm512_cmple_epu8_mask(
            _mm512_sub_epi8(_mm512_or_si512(v, k512.low), k512.a), k512.z);
        caret = _mm512_cmpeq_epi8_mask(v, k512.caret);
        apostrophe = _mm512_cmpeq_epi8_mask(v, k512.apos) & epin_mask;
        modifier = _mm512_cmpeq_epi8_mask(v, k512.plus) | _mm512_cmpeq_epi8_mask(v, k512.minus);
        refused = sashite_text_refused(letter, caret, apostrophe, modifier, was_letter,
                                       was_caret, q[64]);
        if (refused) { /* the tokens wholly before the first refused byte, then stop */
            uint64_t kept = sashite_refused_prefix((uint64_t)letter, refused, &top);
            if (!kept)
                break;
            /* the start of the token left to scan_many: its letter, or a modifier */
            stop = top - (top > 0 && ((uint64_t)modifier >> (top - 1) & 1));
            letter = (__mmask64)kept;
        }
        /* each letter's flags, as the AVX-512 decode block reads them */
        terminal = _mm512_cmpeq_epi8_mask(next, k512.caret);
        derived = (_mm512_cmpeq_epi8_mask(next, k512.apos)
                   | (terminal & _mm512_cmpeq_epi8_mask(after, k512.apos))) & epin_mask;
        flags = _mm512_maskz_mov_epi8(_mm512_cmpeq_epi8_mask(prev, k512.plus), k512.f_plus);
        flags = _mm512_mask_mov_epi8(flags, _mm512_cmpeq_epi8_mask(prev, k512.minus),
                                     k512.f_minus);
        modified = _mm512_test_epi8_mask(flags, flags);
        flags = _mm512_mask_add_epi8(flags, terminal, flags, k512.f_term);
        flags = _mm512_mask_add_epi8(flags, derived, flags, k512.f_der);
        /* each byte's in-row position, + 1 and marked before the block's first row
         * start (its row began in an earlier block); one less for a modifier */
        d = before_row;
        base = _mm512_set1_epi64(b - row_at - 1);
        while (next_row < b + stop) {
            int s = (int)(next_row - b);
            __mmask64 from = (__mmask64)(~UINT64_C(0) << s);
            d = _mm512_mask_sub_epi8(d, from, iota, _mm512_set1_epi8((char)s));
            row_offsets[++r] = k + sashite_popcount64((uint64_t)letter & ~(uint64_t)from);
            row_at = next_row;
            next_row = row_start[r + 1];
        }
        d = _mm512_mask_sub_epi8(d, modified, d, one);
        count = sashite_popcount64((uint64_t)letter);
        _mm512_storeu_si512((void *)at, _mm512_maskz_compress_epi8(letter, d));
        for (t = 0; t < count; t += 8) {
            __m512i x = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(at + t)));
            __m512i o = _mm512_and_si512(x, low7);
            o = _mm512_mask_add_epi64(o, _mm512_test_epi64_mask(x, mark), o, base);
            _mm512_storeu_si512((void *)(offsets + k + t), o);
        }
        letters_c = _mm512_maskz_compress_epi8(letter, v);
        flags_c = _mm512_maskz_compress_epi8(letter, flags);
        _mm512_storeu_si512((void *)(batch + m),
                            _mm512_permutex2var_epi8(letters_c, pairs_lo, flags_c));
        _mm512_storeu_si512((void *)(batch + m + 32),
                            _mm512_permutex2var_epi8(letters_c, pairs_hi, flags_c));
        m += count;
        k += count;
        if (m >= SASHITE_BATCH) {
            sashite_write_avx512(out + 5 * (k - m), records, batch, m);
            m = 0;
        }
        if (letter) { /* the end of the block's last token */
            top = sashite_top64((uint64_t)letter);
            resume = b + top + 1 + (Py_ssize_t)(((uint64_t)terminal >> top) & 1)
                     + (Py_ssize_t)(((uint64_t)derived >> top) & 1);
        }
        if (refused)
            break;
        was_letter = (uint64_t)letter >> 63, was_caret = (uint64_t)caret >> 63;
        b += 64;
    }
    sashite_write_avx512(out + 5 * (k - m), records, batch, m);
    *row = r, *resume_at = resume;
    return k;
}

/* scan_many reads indexes by byte position, which this kernel's block compresses: it
 * runs AVX2's block loop. */
static const sashite_kernel sashite_kernel_avx512 = {
    "avx512", sashite_runs_avx512, sashite_count_avx512, sashite_decode_avx512,
    sashite_scan_avx2, sashite_rows_avx512};
#else
static const sashite_kernel sashite_kernel_avx512 = {
    "avx512", sashite_never, NULL, NULL, NULL, NULL};
#endif

#endif
