/* The bytes kernel alone, for counting the instructions a token costs: counts the
 * tokens of a buffer and decodes them into records, as parse_many does, with no
 * Python around it.  reliability/kernel_count.sh builds it for x86-64 (SSE2) and for
 * aarch64 (NEON) and counts each run by an instruction counter (valgrind, qemu).
 *
 *     kernel_count KERNEL TOKENS RUNS     KERNEL: sse2 | avx2 | neon
 *
 * reads the buffer RUNS times and prints the tokens; the difference between two
 * counts, RUNS 1 and RUNS 2, is one read alone, without the buffer's making.
 * The buffer is the bench's uniform corpus in shape: TOKENS tokens drawn evenly from
 * the 624 EPIN tokens, one space after each.  The record table holds a nonzero record
 * for every letter (what a record says does not change the work). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ptrdiff_t Py_ssize_t; /* what the headers take from Python.h in the core */

#include "_kernels.h"

static uint64_t records[SASHITE_RECORD_INDEXES];

int main(int argc, char **argv) {
    static const char *const modifiers[] = {"", "+", "-"};
    char tokens[624][5];
    int kernel, t = 0, letter, m, terminal, derived;
    long count, runs, run, i;
    uint32_t seed = 12345;
    unsigned char *data, *out;
    Py_ssize_t size = 0, at = 0, k = 0, bad = 0, found;
    if (argc != 4) {
        fprintf(stderr, "usage: kernel_count sse2|avx2|neon TOKENS RUNS\n");
        return 2;
    }
    kernel = !strcmp(argv[1], "neon") ? SASHITE_KERNEL_NEON
             : !strcmp(argv[1], "avx2") ? SASHITE_KERNEL_AVX2
             : !strcmp(argv[1], "sse2") ? SASHITE_KERNEL_SSE2 : -1;
    if (kernel < 0 || !sashite_kernel_runs(kernel) || !sashite_decode_kernel(kernel)) {
        fprintf(stderr, "kernel %s: not in this build or not on this CPU\n", argv[1]);
        return 2;
    }
    (void)sashite_scan_kernel; /* scan_many's loop: not counted here */
    count = atol(argv[2]);
    runs = atol(argv[3]);
    for (letter = 0; letter < 52; letter++)
        for (m = 0; m < 3; m++)
            for (terminal = 0; terminal < 2; terminal++)
                for (derived = 0; derived < 2; derived++)
                    snprintf(tokens[t++], 5, "%s%c%s%s", modifiers[m],
                             letter < 26 ? 'A' + letter : 'a' + letter - 26,
                             terminal ? "^" : "", derived ? "'" : "");
    for (i = 0; i < SASHITE_RECORD_INDEXES; i++)
        records[i] = (i & 0xFF) ? (uint64_t)i : 0;
    data = malloc((size_t)count * 5 + 64);
    out = malloc((size_t)count * 5 + 8);
    if (!data || !out)
        return 2;
    for (i = 0; i < count; i++) {
        const char *token;
        seed = seed * 1103515245u + 12345u; /* the same draw on every machine */
        token = tokens[(seed >> 8) % 624];
        memcpy(data + size, token, strlen(token));
        size += (Py_ssize_t)strlen(token);
        data[size++] = ' ';
    }
    sashite_build_gather_table();
    for (run = 0; run < runs; run++) {
        at = 0, k = 0;
        found = sashite_count_kernel(kernel)(data, size);
        if (found != count
            || sashite_decode_kernel(kernel)(data, size, &at, &k, found, out, records, 1, &bad)
                   != SASHITE_DECODED
            || k != count) {
            fprintf(stderr, "kernel %s: %ld tokens, decoded %ld\n", argv[1], (long)found,
                    (long)k);
            return 1;
        }
    }
    printf("%ld\n", (long)k);
    free(data);
    free(out);
    return 0;
}
