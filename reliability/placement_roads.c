/* The placement scan's two fast roads, one against the other: _placement.h compiled
 * with its SSE2 road (every x86-64) and without it (-U__SSE2__: the table road that
 * aarch64 and every other CPU take), each run over the same 400,000 pseudo-random
 * texts (pieces, counts, separators and stray bytes, up to 500 bytes, EPIN and PIN),
 * each printing how many it accepted and a hash of every answer and board.  .ci/checks
 * builds both and requires the same line from each.  Each board a road accepts is also
 * held to the full scan's (the switch scanner, whose reasons are the contract): a road
 * that accepts what the full scan refuses, or lays out another board, fails the run.
 * The roads against FEEN's grammar are the suite's (tests/test_boards.py). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef ptrdiff_t Py_ssize_t;

#include "_placement.h"

static uint64_t state = 88172645463325252ULL;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(void)
{
    static const char *parts[] = {"K", "p", "q", "+", "-", "^", "'", "/", "//", "0",
                                  "1", "8", "9", "12", " ", "\x01", "\xc3", "R^'", "+b",
                                  "-Q^"};
    const int kinds = (int)(sizeof parts / sizeof *parts);
    static unsigned char text[512], room[SASHITE_FAST_MAX + SASHITE_FAST_PAD];
    static int16_t squares[65536 + 64], full_squares[65536];
    static int32_t lengths[8000], full_lengths[8000];
    static uint8_t separators[8000], full_separators[8000];
    uint64_t hash = 1469598103934665603ULL;
    long accepted = 0;
    int t;
    sashite_placement_init();
    for (t = 0; t < 400000; t++) {
        /* mostly pieces (a fifth of them marked), often counts and separators,
         * sometimes anything */
        int n = 0, left = 1 + (int)(next() % 60), mode = (int)(next() % 4);
        Py_ssize_t count = -1, ranks = -1, full_count = -1, full_ranks = -1, at = 0, last = 0, i;
        int rc;
        while (left-- > 0) {
            int k = mode == 0 ? (int)(next() % kinds)
                    : next() % 4 == 0 ? 7 + (int)(next() % 6)
                                      : (int)(next() % 3) + (next() % 5 == 0 ? 17 : 0);
            size_t length = strlen(parts[k]);
            if (n + length > 500)
                break;
            memcpy(text + n, parts[k], length);
            n += (int)length;
        }
        rc = sashite_board_fast(text, n, t & 1, room, squares, lengths, separators, &count,
                                &ranks);
        hash = (hash ^ (uint64_t)(unsigned)rc) * 1099511628211ULL;
        if (rc != 0)
            continue;
        accepted++;
        if (sashite_scan_placement_as(text, n, t & 1, full_squares, 65536, &full_count,
                                      full_lengths, full_separators, 8000, &full_ranks, &at,
                                      &last) != 0
            || full_count != count || full_ranks != ranks
            || memcmp(full_squares, squares, (size_t)count * sizeof *squares)
            || memcmp(full_lengths, lengths, (size_t)ranks * sizeof *lengths)
            || memcmp(full_separators, separators, (size_t)ranks)) {
            printf("text %d (%.*s): the road and the full scan differ\n", t, n, text);
            return 1;
        }
        for (i = 0; i < count; i++)
            hash = (hash ^ (uint16_t)squares[i]) * 1099511628211ULL;
        for (i = 0; i < ranks; i++)
            hash = (hash ^ (uint32_t)lengths[i] ^ ((uint32_t)separators[i] << 20))
                   * 1099511628211ULL;
    }
    printf("%ld accepted, hash %016llx\n", accepted, (unsigned long long)hash);
    return 0;
}
