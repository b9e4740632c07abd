/* The bytes kernels: parse_many's hot loop over whitespace-separated tokens, and the
 * pieces the other bulk readers share.  Five kernels give identical results: portable
 * (plain C, on every CPU), SSE2 (every x86-64), AVX2 and AVX-512 (each chosen at run
 * time, so one wheel runs on any x86-64), NEON (every aarch64, chosen at compile time).
 * _bulk_c.pxi picks one; the exact scanner reads whatever a kernel does not accept.
 *
 * The layout is simdjson's and simdutf's: this file says what a kernel is (the small
 * set of functions below, sashite_kernel) and what every kernel shares; each kernel is
 * one header in kernels/ (portable.h, sse2.h, avx2.h, avx512.h, neon.h) that defines
 * its steps and fills the set, the loops that are the same for every SIMD kernel
 * written once in kernels/generic/ and included by each kernel's header with a few
 * defines.  Adding a kernel: a number below, a header, and a line in sashite_kernels.
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
 * must start: the first token it did not write.  The same blocks serve back-to-back
 * text: scan_many's block loop (tokenize), and tokenize_many's rows loop, which also
 * writes each token's record, its offset in its row and each row's first token.  The portable kernel takes the same
 * steps a byte at a time, in loops compilers vectorize (kernels/portable.h). */
#ifndef SASHITE_EPIN_KERNELS_H
#define SASHITE_EPIN_KERNELS_H

#include <stddef.h>

#include "_split.h"

/* The AVX2 and AVX-512 kernels, on x86-64 or x86 with SSE2, chosen at run time.  Every
 * compiler's build asks the CPU the same way, through CPUID and XGETBV
 * (SASHITE_EPIN_CPUID: sashite_cpu_has, kernels/avx2.h), never through the compiler's
 * runtime: __builtin_cpu_supports reads a CPU model that libgcc or compiler-rt fills in,
 * which a toolchain whose runtime does not fill it in (a Zig build's) leaves at zero, so
 * such a build ran SSE2 on an AVX2 CPU; and MSVC's linker brings no such runtime at all.
 * - GCC and clang compile each kernel for its extension alone by a target attribute.
 * - MSVC has no such attribute and needs none: it takes the intrinsics of any extension
 *   in any function.
 * - clang-cl (clang with MSVC's headers and rules) takes the attributes, but its
 *   immintrin.h leaves out each extension's header unless the whole build targets that
 *   extension, so they are included one by one (simdjson does the same). */
#if defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64)
#include <intrin.h>
#include <immintrin.h>
#define SASHITE_EPIN_AVX2 1
#define SASHITE_EPIN_CPUID 1
#elif (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) \
    && defined(SASHITE_EPIN_SSE2)
#include <immintrin.h>
#if defined(_MSC_VER) && defined(__x86_64__)
#include <intrin.h>
#include <smmintrin.h>
#include <popcntintrin.h>
#include <bmiintrin.h>
#include <bmi2intrin.h>
#include <xsaveintrin.h>
#include <avxintrin.h>
#include <avx2intrin.h>
#include <avx512fintrin.h>
#include <avx512bwintrin.h>
#include <avx512vlintrin.h>
#include <avx512vlbwintrin.h>
#include <avx512vbmiintrin.h>
#include <avx512vbmi2intrin.h>
#endif
#define SASHITE_EPIN_AVX2 1
#define SASHITE_EPIN_CPUID 1
#endif

enum {
    SASHITE_KERNEL_PORTABLE = 0,
    SASHITE_KERNEL_SSE2 = 1,
    SASHITE_KERNEL_AVX2 = 2,
    SASHITE_KERNEL_AVX512 = 3,
    SASHITE_KERNEL_NEON = 4,
    SASHITE_KERNEL_COUNT = 5
};

/* Whether a kernel runs the x86 loops written for AVX2 (the lane readers, and the
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

/* ---- step 1 and the record indexes, per SIMD kernel -----------------------------------
 * sashite_block_K(q, c, index): q[-1] .. q[65] readable; classes of q[0..63] into c,
 * index[i] = q[i] | flags << 8 (meaningful where q[i] is a letter of a valid token).
 * (The AVX-512 one also takes its constants, made before the loop.)  Each SIMD
 * kernel's header defines its own. */

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

/* ---- step 4: the records of a batch of indexes ---------------------------------------
 * sashite_write_K(out, records, batch, m): records[batch[t]] to out + 5 t, t < m. */

/* One 8-byte store each: its last 3 bytes land in the next record, written after. */
static inline void sashite_write_scalar(unsigned char *out, const uint64_t *records,
                                        const uint16_t *batch, Py_ssize_t m) {
    Py_ssize_t t;
    for (t = 0; t < m; t++)
        memcpy(out + 5 * t, &records[batch[t]], 8);
}

/* The 64-byte block of p at pos for a decode loop, with q[-1] .. q[65] readable: in
 * place, or at the buffer's start and near its end a copy in pad (SASHITE_PAD bytes:
 * before as q[-1], separators past the buffer's end). */
#define SASHITE_PAD (1 + 64 + 16)
static inline const unsigned char *sashite_block_at(const unsigned char *p, Py_ssize_t size,
                                                    Py_ssize_t pos, unsigned char before,
                                                    unsigned char *pad) {
    Py_ssize_t n;
    if (pos > 0 && size - pos >= 66)
        return p + pos;
    n = size - pos < 66 ? size - pos : 66;
    memset(pad, 32, SASHITE_PAD);
    pad[0] = before;
    memcpy(pad + 1, p + pos, (size_t)n);
    return pad + 1;
}

/* The 64-byte block of back-to-back text at b for the scan loops (scan_many's and
 * tokenize_many's), with q[-1] .. q[71] readable: in place, or at the text's start a
 * copy in pad (1 + 64 + 8 bytes) after a 0 byte, as nothing stands before the text. */
static inline const unsigned char *sashite_text_block(const unsigned char *p, Py_ssize_t b,
                                                      unsigned char *pad) {
    if (b > 0)
        return p + b;
    pad[0] = 0;
    memcpy(pad + 1, p, 64 + 8);
    return pad + 1;
}

/* What the greedy scan refuses in a block of back-to-back text, as a mask: a '^' not
 * right after a letter, a '\'' (EPIN's: 0 in PIN) not right after a letter or a '^',
 * a modifier not right before a letter (after_block: the byte after the block);
 * was_letter, was_caret: the classes of the byte before the block, as bit 0. */
static inline uint64_t sashite_text_refused(uint64_t letter, uint64_t caret, uint64_t apostrophe,
                                            uint64_t modifier, uint64_t was_letter,
                                            uint64_t was_caret, unsigned char after_block) {
    uint64_t before_letter = letter << 1 | was_letter;
    uint64_t next_letter = (unsigned char)((after_block | 0x20) - 'a') < 26;
    return (caret & ~before_letter) | (apostrophe & ~(before_letter | caret << 1 | was_caret))
           | (modifier & ~(letter >> 1 | next_letter << 63));
}

/* tokenize_many's rows loops in a block they refuse: the letters of the tokens that lie
 * wholly before its first refused byte (every letter below it but the highest, whose
 * token may hold that byte; that letter's position in *top), 0 where none. */
static inline uint64_t sashite_refused_prefix(uint64_t letter, uint64_t refused, int *top) {
    uint64_t kept = letter & ((refused & (0 - refused)) - 1);
    if (!kept)
        return 0;
    *top = sashite_top64(kept);
    return kept ^ (UINT64_C(1) << *top);
}

/* Where the exact scanner starts when a decode loop stops at pos (a block's start, or
 * the buffer's end), from record k: back to the start of the token crossing into the
 * block (at most 4 bytes, not before *at), that token's record taken back if its
 * letter lies before pos (the loop wrote it with the block before).  Sets *at, *k_at. */
static inline void sashite_back_to_token(const unsigned char *p, Py_ssize_t pos, Py_ssize_t *at,
                                         Py_ssize_t *k_at, Py_ssize_t k) {
    Py_ssize_t n = pos, t;
    while (n > *at && !sashite_is_sep(p[n - 1]))
        n--;
    for (t = n; t < pos; t++)
        k -= (unsigned char)((p[t] | 0x20) - 'a') < 26;
    *at = n, *k_at = k;
}

/* ---- the rule on eight lanes -------------------------------------------------------
 * For readers that know where each token starts and how long it is, Arrow columns
 * (_columns.h) and str objects (_strs.h): sashite_key_record's rule on eight lengths
 * and 4-byte words at once, each entry checked against its own length, none waiting
 * on another. */

/* A lane's 4 bytes, from any alignment. */
static inline int32_t sashite_load32(const unsigned char *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Whether a kernel has lane readers (lists of str, Arrow columns): AVX2, AVX-512 and
 * NEON; SSE2 has no per-lane shifts, which the rule needs. */
static inline int sashite_kernel_lanes(int kernel) {
    return sashite_kernel_avx2_loops(kernel) || kernel == SASHITE_KERNEL_NEON;
}


/* Record indexes wait in a batch, written out in one counted loop: no branch per token
 * (the decode loop's, and the lane readers'). */
#define SASHITE_BATCH 1024
#define SASHITE_LANES_BATCH 512

/* ---- marks of a byte buffer (errors="mark") ------------------------------------------
 * The tokens a buffer's decode under errors="mark" refused, as compact columns (room
 * for one per token: memory never written costs nothing): each one's record index and
 * start.  Its end (the separator after it), its reason and its line are read again
 * from the buffer when they are asked for (the columns' memory traffic was most of a
 * marked token's cost). */
typedef struct {
    int64_t *index, *start;
    Py_ssize_t count, room;
} sashite_byte_marks;

typedef int (*sashite_marks_fn)(const unsigned char *, Py_ssize_t, Py_ssize_t *, Py_ssize_t *,
                                Py_ssize_t, unsigned char *, const uint64_t *, int,
                                sashite_byte_marks *, Py_ssize_t *);

/* ---- what a kernel is -------------------------------------------------------------- */

typedef Py_ssize_t (*sashite_count_fn)(const unsigned char *, Py_ssize_t);
typedef int (*sashite_decode_fn)(const unsigned char *, Py_ssize_t, Py_ssize_t *, Py_ssize_t *,
                                 Py_ssize_t, unsigned char *, const uint64_t *, int,
                                 Py_ssize_t *);
typedef Py_ssize_t (*sashite_scan_fn)(const unsigned char *, Py_ssize_t, int, const uint16_t *,
                                      uint16_t *, Py_ssize_t *, Py_ssize_t, Py_ssize_t *,
                                      Py_ssize_t *);
typedef Py_ssize_t (*sashite_rows_fn)(const unsigned char *, Py_ssize_t, Py_ssize_t, int,
                                      const uint64_t *, const int64_t *, Py_ssize_t *,
                                      int64_t *, unsigned char *, int64_t *, Py_ssize_t,
                                      Py_ssize_t *);


/* A kernel: its name, whether this CPU runs it, and its loops.  A build without the kernel has
 * runs = sashite_never and the loops NULL; a NULL decode means the exact scanner reads
 * every token, a NULL scan scan_many's own loop, a NULL rows scan_many under
 * tokenize_many (which then writes each token's record, row and offset itself). */
typedef struct {
    const char *name; /* as use_bytes_kernel and SASHITE_EPIN_KERNEL take it */
    int (*runs)(void);
    sashite_count_fn count;
    sashite_decode_fn decode;
    sashite_scan_fn scan;
    sashite_rows_fn rows; /* tokenize_many's: scan with records, rows and offsets */
} sashite_kernel;

static inline int sashite_always(void) { return 1; }
static inline int sashite_never(void) { return 0; }

#include "kernels/portable.h"
#include "kernels/sse2.h"
#include "kernels/avx2.h"
#include "kernels/avx512.h"
#include "kernels/neon.h"

/* The kernels by number (SASHITE_KERNEL_*): one line each. */
static const sashite_kernel *const sashite_kernels[SASHITE_KERNEL_COUNT] = {
    &sashite_kernel_portable,
    &sashite_kernel_sse2,
    &sashite_kernel_avx2,
    &sashite_kernel_avx512,
    &sashite_kernel_neon,
};

/* A kernel's name (kernel: 0 .. SASHITE_KERNEL_COUNT - 1). */
static inline const char *sashite_kernel_name(int kernel) {
    return sashite_kernels[kernel]->name;
}

/* Whether this build and this CPU can run a kernel. */
static int sashite_kernel_runs(int kernel) {
    return kernel >= 0 && kernel < SASHITE_KERNEL_COUNT && sashite_kernels[kernel]->runs();
}

/* A kernel's loops; the portable kernel's where it has none (only a kernel that runs
 * is ever asked for). */
static sashite_count_fn sashite_count_kernel(int kernel) {
    return sashite_kernel_runs(kernel) ? sashite_kernels[kernel]->count
                                       : sashite_kernel_portable.count;
}

static sashite_decode_fn sashite_decode_kernel(int kernel) {
    return sashite_kernel_runs(kernel) ? sashite_kernels[kernel]->decode
                                       : sashite_kernel_portable.decode;
}

/* scan_many's block loop for a kernel; NULL for portable (scan_many's own loop). */
static sashite_scan_fn sashite_scan_kernel(int kernel) {
    return sashite_kernel_runs(kernel) ? sashite_kernels[kernel]->scan : NULL;
}

/* The decode loop under errors="mark" (kernels/generic/marks.h) for a kernel, or NULL
 * where it has none (portable, NEON: their marks go through the exact scanner, with
 * the same results). */
static inline sashite_marks_fn sashite_marks_kernel(int kernel) {
    if (!sashite_kernel_runs(kernel))
        return NULL;
#ifdef SASHITE_EPIN_AVX2
    if (kernel == SASHITE_KERNEL_AVX512 && sashite_runs_bmi2())
        return sashite_decode_marks_avx512;
    if (sashite_kernel_avx2_loops(kernel))
        return sashite_decode_marks_avx2;
#endif
#ifdef SASHITE_EPIN_SSE2
    if (kernel == SASHITE_KERNEL_SSE2)
        return sashite_decode_marks_sse2;
#endif
    return NULL;
}

/* tokenize_many's block loop for a kernel, or NULL. */
static inline sashite_rows_fn sashite_rows_kernel(int kernel) {
    return sashite_kernel_runs(kernel) ? sashite_kernels[kernel]->rows : NULL;
}

/* Whether CPUID and XGETBV say the CPU runs an x86 kernel of this build (AVX2 or
 * AVX-512; 0 for any other): what the kernels' runs() ask, which the tests hold against
 * what the operating system says of the CPU (/proc/cpuinfo). */
static inline int sashite_cpuid_runs(int kernel) {
#ifdef SASHITE_EPIN_CPUID
    if (kernel == SASHITE_KERNEL_AVX2)
        return sashite_cpu_has(SASHITE_CPU_AVX2);
    if (kernel == SASHITE_KERNEL_AVX512)
        return sashite_cpu_has(SASHITE_CPU_AVX512);
#endif
    (void)kernel;
    return 0;
}

#endif
