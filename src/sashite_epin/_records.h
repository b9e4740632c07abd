/* Sums over a TokenArray's 5-byte records (letter, side, state, terminal, derived), for
 * the formatters that must size their output before writing it (to_bytes).
 *
 * A token is its letter, plus one modifier byte when its state is not normal (state
 * 1 or 2), plus '^' when terminal, plus '\'' when derived (each flag 0 or 1).  So the
 * bytes of n tokens are n + (states not 0) + terminals + deriveds, which SSE2 counts
 * 16 records (80 bytes, five vectors) at a time: the byte positions of each field
 * repeat every 80 bytes, so five fixed masks pick them out.  Records marked invalid
 * (all zero) must not be passed: their length means nothing. */
#ifndef SASHITE_EPIN_RECORDS_H
#define SASHITE_EPIN_RECORDS_H

#include <stddef.h>

#include "_split.h"

static size_t sashite_records_length_portable(const unsigned char *r, size_t n) {
    size_t total = n, i;
    for (i = 0; i < n; i++, r += 5) total += (r[2] != 0) + r[3] + r[4];
    return total;
}

#if defined(SASHITE_EPIN_SSE2)
static size_t sashite_records_length(const unsigned char *r, size_t n) {
    unsigned char state_at[80], flag_at[80];
    __m128i states[5], flags[5], sums = _mm_setzero_si128(), zero = _mm_setzero_si128();
    uint64_t halves[2];
    size_t blocks = n / 16, b;
    int j, k;
    for (j = 0; j < 80; j++) {
        state_at[j] = (unsigned char)(j % 5 == 2);
        flag_at[j] = (unsigned char)(j % 5 == 3 || j % 5 == 4);
    }
    for (k = 0; k < 5; k++) {
        states[k] = _mm_loadu_si128((const __m128i *)(state_at + 16 * k));
        flags[k] = _mm_loadu_si128((const __m128i *)(flag_at + 16 * k));
    }
    for (b = 0; b < blocks; b++, r += 80) {
        __m128i ones = zero; /* at most 2 per byte lane: no overflow */
        for (k = 0; k < 5; k++) {
            __m128i w = _mm_loadu_si128((const __m128i *)(r + 16 * k));
            /* a state of 1 or 2 has bit 0 or bit 1 set: (w | w >> 1) & 1 */
            ones = _mm_add_epi8(ones, _mm_and_si128(_mm_or_si128(w, _mm_srli_epi16(w, 1)), states[k]));
            ones = _mm_add_epi8(ones, _mm_and_si128(w, flags[k]));
        }
        sums = _mm_add_epi64(sums, _mm_sad_epu8(ones, zero));
    }
    _mm_storeu_si128((__m128i *)halves, sums);
    return 16 * blocks + (size_t)(halves[0] + halves[1])
           + sashite_records_length_portable(r, n - 16 * blocks);
}
#else
#define sashite_records_length sashite_records_length_portable
#endif

/* A 10-bit key of a record, one 8-byte load and a multiply instead of five byte loads:
 * the letter's low five bits (1..26), then side, state (2 bits), terminal and derived,
 * gathered by one multiplication into bits 40..44 (each field's bit lands there by its
 * own shift; the other products stay below bit 38 or above 44, so no carry reaches
 * them).  It reads 3 bytes past the record: TokenArray keeps 8 bytes of slack. */
#define SASHITE_RECORD_KEYS 1024

static inline unsigned sashite_record_key(const unsigned char *r) {
    uint64_t w;
    memcpy(&w, r, 8);
    return (unsigned)(w & 31)
           | (unsigned)(((w & 0x0101030100ULL) * 0x102081000ULL >> 35) & 0x3E0);
}

#endif
