/* The portable kernel: plain C, no intrinsics, for every CPU that has no SIMD kernel
 * here (ppc64le, s390x, riscv64, wasm, ...).  _kernels.h includes it; it fills
 * sashite_kernel_portable: a count and a decode loop of its own, no scan loop.
 *
 * SWAR alone (eight bytes a 64-bit word) costs some 50 operations a word for the SIMD
 * kernels' five class masks, more than 3 ns a token.  So the per-byte steps are loops
 * of a fixed count over a 64-byte block, with no branch, each byte's verdict a 0 / 0xFF
 * byte computed from its own byte and its neighbours' (q[i - 1], q[i + 1], q[i + 2]):
 * the form compilers turn into their target's vector code (SSE2, VSX, NEON, simd128,
 * RVV, LSX, MSA), 16 bytes an instruction or more.  SWAR takes the rest: the 0 / 0xFF
 * bytes packed into a 64-bit mask by a multiply per word, counts summed the same way.
 *
 * A compiler with no vector unit to target would run those loops a byte at a time,
 * several times slower than the exact scanner: there (SASHITE_EPIN_VECTOR_LOOPS
 * undefined) the portable kernel counts by SWAR and leaves every token to the exact
 * scanner, as it did before it had a fast road. */
#ifndef SASHITE_EPIN_KERNEL_PORTABLE_H
#define SASHITE_EPIN_KERNEL_PORTABLE_H

#if defined(SASHITE_EPIN_SSE2) || defined(__ARM_NEON) || defined(__ARM_NEON__)          \
    || defined(__ALTIVEC__) || defined(__VSX__) || defined(__VX__)                        \
    || defined(__wasm_simd128__) || defined(__riscv_vector) || defined(__loongarch_sx)     \
    || defined(__mips_msa)
#define SASHITE_EPIN_VECTOR_LOOPS 1
#endif

#ifdef SASHITE_EPIN_VECTOR_LOOPS

/* Clang's cost model vectorizes the byte loops below 4 bytes wide, four times slower
 * than 16: it is told the width, as GCC finds it alone. */
#if defined(__clang__)
#define SASHITE_BYTE_LOOP _Pragma("clang loop vectorize_width(16) interleave_count(1)")
#else
#define SASHITE_BYTE_LOOP
#endif

/* Byte tests as masks, 0xFF (true) or 0 (false): bytes wide throughout, so compilers
 * vectorize them 16 or more to an instruction, with no widening. */
static inline unsigned char sashite_is(unsigned char b, unsigned char c) {
    return (unsigned char)(0 - (unsigned char)(b == c));
}

static inline unsigned char sashite_sep_m(unsigned char b) {
    return (unsigned char)(sashite_is(b, 32) | (0 - (unsigned char)((unsigned char)(b - 9) < 5)));
}

static inline unsigned char sashite_below(unsigned char b, unsigned char c) {
    return (unsigned char)(0 - (unsigned char)(b < c));
}

static inline unsigned char sashite_letter_m(unsigned char b) {
    return (unsigned char)(0 - (unsigned char)((unsigned char)((b | 0x20) - 'a') < 26));
}

/* Adds 1 to acc[i] for each i where a token starts at q[i] (a non-separator after a
 * separator; q[-1] readable): an element-wise loop, which compilers vectorize. */
static inline void sashite_add_starts64(const unsigned char *q, unsigned char *acc) {
    int i;
    SASHITE_BYTE_LOOP
    for (i = 0; i < 64; i++)
        acc[i] = (unsigned char)(acc[i] + (sashite_sep_m(q[i - 1]) & ~sashite_sep_m(q[i]) & 1));
}

/* The sum of acc[0..63] (each byte at most 255), and acc cleared: per 8 bytes, pairs
 * added into 16-bit lanes (at most 510), then the four lanes by one multiply (at most
 * 2040, so no carry leaves the top lane). */
static inline Py_ssize_t sashite_sum64(unsigned char *acc) {
    Py_ssize_t sum = 0;
    uint64_t w;
    int i;
    for (i = 0; i < 64; i += 8) {
        memcpy(&w, acc + i, 8);
        sum += (Py_ssize_t)(((w & UINT64_C(0x00FF00FF00FF00FF))
                             + (w >> 8 & UINT64_C(0x00FF00FF00FF00FF)))
                            * UINT64_C(0x0001000100010001) >> 48);
    }
    memset(acc, 0, 64);
    return sum;
}

/* How many runs of non-separators p[0..size-1] holds: per-byte counts of starts,
 * summed every 255 blocks (before a byte could wrap). */
static Py_ssize_t sashite_count_portable(const unsigned char *p, Py_ssize_t size) {
    Py_ssize_t b = 1, count;
    unsigned char acc[64], block[1 + 64];
    int blocks = 0;
    if (size == 0)
        return 0;
    memset(acc, 0, sizeof acc);
    count = !sashite_is_sep(p[0]);
    for (; size - b >= 64; b += 64) { /* p[b - 1] is read: b starts at 1 */
        sashite_add_starts64(p + b, acc);
        if (++blocks == 255)
            count += sashite_sum64(acc), blocks = 0;
    }
    if (b < size) {
        memset(block, 32, sizeof block);
        memcpy(block, p + b - 1, (size_t)(size - b + 1));
        sashite_add_starts64(block + 1, acc);
    }
    return count + sashite_sum64(acc);
}

/* The letters among the 64 bytes m[0..63] (each a letter or 0) as a mask, bit i for
 * byte i: bit 6 is set in every ASCII letter (0x41-0x5A, 0x61-0x7A), shifted to the top
 * bit of its byte. */
static inline uint64_t sashite_pack64(const unsigned char *m) {
    const uint64_t high = UINT64_C(0x8080808080808080);
    uint64_t mask = 0;
    int i;
    for (i = 0; i < 8; i++)
        mask |= sashite_high_bits8(sashite_load64_le(m + 8 * i) << 1 & high) << (8 * i);
    return mask;
}

/* Step 2 of the SIMD kernels for the byte at q (q[-1] readable), as a mask: 0xFF where
 * the grammar takes it there, 0 where it refuses it.  A byte is taken when it has a
 * class and its predecessor is one the grammar allows before that class.  epin: 0xFF
 * or 0 (PIN gives an apostrophe no class).
 *
 * The byte's own class is tested exactly.  Its predecessor's is told apart by cheaper
 * tests, which hold when that byte has a class: separators lie below 0x21, letters
 * and '^' above 0x40, '\'' and the modifiers between.  A predecessor with no class is
 * refused itself, one byte earlier, so the first refused byte stays the same; and the
 * byte before a block has a class (a separator, or the end of a token the grammar
 * took). */
static inline unsigned char sashite_taken(const unsigned char *q, unsigned char epin) {
    unsigned char b = q[0], a = q[-1];
    unsigned char a_sep = sashite_below(a, 0x21), a_mod = sashite_is(a, '+') | sashite_is(a, '-');
    unsigned char a_high = (unsigned char)~sashite_below(a, 0x41); /* a letter or '^' */
    unsigned char a_let = a_high & (unsigned char)~sashite_is(a, '^');
    return (unsigned char)((sashite_sep_m(b) & ~a_mod)
                           | ((sashite_is(b, '+') | sashite_is(b, '-')) & a_sep)
                           | (sashite_letter_m(b) & (a_sep | a_mod))
                           | (sashite_is(b, '^') & a_let)
                           | (sashite_is(b, '\'') & epin & a_high));
}

/* Steps 1 and 2 of the SIMD kernels on q[0..63] (q[-1] .. q[65] readable), a byte at a
 * time in a loop of a fixed count with no branch, which compilers turn into their
 * target's vector code where it has one.  Sets letter[i] to q[i] where it is a letter,
 * else 0, and flags[i] to the flags read around it (the letter kept from the same read
 * as its check: read again after it, while another thread writes into the buffer, it
 * could be a separator by then, its record 0); returns 0 when the grammar refuses no byte
 * of the block. */
static inline unsigned sashite_portable_block(const unsigned char *q, unsigned char *letter,
                                              unsigned char *flags, unsigned char epin) {
    unsigned char all = 0xFF;
    int i;
    SASHITE_BYTE_LOOP
    for (i = 0; i < 64; i++) {
        unsigned char a = q[i - 1], n1 = q[i + 1], n2 = q[i + 2];
        unsigned char terminal = sashite_is(n1, '^');
        unsigned char derived = sashite_is(n1, '\'') | (terminal & sashite_is(n2, '\''));
        all &= sashite_taken(q + i, epin);
        letter[i] = sashite_letter_m(q[i]) & q[i];
        flags[i] = (unsigned char)((sashite_is(a, '+') & SASHITE_FLAG_PLUS)
                                   | (sashite_is(a, '-') & SASHITE_FLAG_MINUS)
                                   | (terminal & SASHITE_FLAG_TERMINAL)
                                   | (derived & SASHITE_FLAG_DERIVED));
    }
    return all != 0xFF;
}

/* The decode loops' contract (kernels/generic/decode.h), in that loop's shape: a block
 * that passes has its letters' records written; at the first that does not, the exact
 * scanner takes over from the start of the token crossing into it (the block's tokens
 * before the refused byte are left to that scanner too: a rare block). */
SASHITE_NOINLINE
static int sashite_decode_portable(const unsigned char *p, Py_ssize_t size, Py_ssize_t *at,
                                   Py_ssize_t *k_at, Py_ssize_t count, unsigned char *out,
                                   const uint64_t *records, int epin, Py_ssize_t *bad_at) {
    Py_ssize_t pos = *at, k = *k_at, t;
    unsigned char pad[SASHITE_PAD], letter[64], flags[64], epin_m = epin ? 0xFF : 0;
    unsigned char before = pos > 0 ? p[pos - 1] : ' ';
    uint64_t letters, record;
    while (pos < size) {
        const unsigned char *q = sashite_block_at(p, size, pos, before, pad);
        if (sashite_portable_block(q, letter, flags, epin_m)) {
            for (t = 0; sashite_taken(q + t, epin_m); t++) {
            }
            *bad_at = pos + t;
            break;
        }
        letters = sashite_pack64(letter);
        if (count - k < 32 && sashite_popcount64(letters) > count - k)
            return SASHITE_OVERFLOW;
        while (letters) {
            size_t t = (size_t)sashite_ctz64(letters);
            letters &= letters - 1;
            record = records[letter[t] | flags[t] << 8];
            memcpy(out + 5 * k, &record, 8);
            k++;
        }
        before = q[63];
        pos += 64;
    }
    if (pos >= size) {
        if (before != '+' && before != '-') {
            *at = size, *k_at = k;
            return SASHITE_DECODED;
        }
        *bad_at = pos = size; /* a buffer ending with a modifier: the scanner says so */
    }
    sashite_back_to_token(p, pos, at, k_at, k);
    return SASHITE_STOPPED;
}
#define SASHITE_DECODE_PORTABLE sashite_decode_portable

#else /* no vector unit: SWAR counts, the exact scanner reads */

/* How many runs of non-separators p[0..size-1] holds: per 64-bit word, its separators
 * as top bits (_split.h), the starts among them summed by one multiply. */
static Py_ssize_t sashite_count_portable(const unsigned char *p, Py_ssize_t size) {
    const uint64_t high = UINT64_C(0x8080808080808080), ones = UINT64_C(0x0101010101010101);
    Py_ssize_t b = 0, count = 0;
    uint64_t w, sep, was_sep = 0x80; /* the byte before the buffer, as a top bit */
    unsigned char word[8];
    for (; b < size; b += 8) {
        if (size - b >= 8) {
            w = sashite_load64_le(p + b);
        } else {
            memset(word, 32, sizeof word);
            memcpy(word, p + b, (size_t)(size - b));
            w = sashite_load64_le(word);
        }
        sep = sashite_sep_bits_swar(w);
        count += (Py_ssize_t)((((~sep & (sep << 8 | was_sep) & high) >> 7) * ones) >> 56);
        was_sep = sep >> 56;
    }
    return count;
}
#define SASHITE_DECODE_PORTABLE NULL

#endif /* SASHITE_EPIN_VECTOR_LOOPS */

/* No scan_many block loop: scan_many's own loop is the portable one. */
static const sashite_kernel sashite_kernel_portable = {
    "portable", sashite_always, sashite_count_portable, SASHITE_DECODE_PORTABLE, NULL, NULL};

#endif
