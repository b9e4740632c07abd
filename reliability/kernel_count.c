/* The bytes kernel alone, for counting the instructions a token costs: counts the
 * tokens of a buffer and decodes them into records, as parse_many does, with no
 * Python around it.  reliability/kernel_count.sh builds it for x86-64 (SSE2, portable)
 * and for aarch64 (NEON, portable) and counts each run by an instruction counter
 * (valgrind, qemu).
 *
 *     kernel_count KERNEL FILE RUNS     KERNEL: sse2 | avx2 | neon | portable
 *
 * reads FILE (tokens between whitespace: the script writes the bench's uniform corpus,
 * made by the package itself) RUNS times and prints the tokens; the difference between
 * two counts, RUNS 1 and RUNS 2, is one read alone, without the loading.  The record
 * table holds a nonzero record for every letter (what a record says does not change
 * the work); the kernel must decode the whole file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ptrdiff_t Py_ssize_t; /* what the headers take from Python.h in the core */

#include "_kernels.h"

static uint64_t records[SASHITE_RECORD_INDEXES];

int main(int argc, char **argv) {
    int kernel;
    long runs, run, i;
    FILE *file;
    unsigned char *data, *out;
    Py_ssize_t size, at = 0, k = 0, bad = 0, found = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: kernel_count sse2|avx2|neon|portable FILE RUNS\n");
        return 2;
    }
    kernel = !strcmp(argv[1], "neon") ? SASHITE_KERNEL_NEON
             : !strcmp(argv[1], "avx2") ? SASHITE_KERNEL_AVX2
             : !strcmp(argv[1], "sse2") ? SASHITE_KERNEL_SSE2
             : !strcmp(argv[1], "portable") ? SASHITE_KERNEL_PORTABLE : -1;
    if (kernel < 0 || !sashite_kernel_runs(kernel) || !sashite_decode_kernel(kernel)) {
        fprintf(stderr, "kernel %s: not in this build or not on this CPU\n", argv[1]);
        return 2;
    }
    (void)sashite_scan_kernel; /* scan_many's loop: not counted here */
    runs = atol(argv[3]);
    file = fopen(argv[2], "rb");
    if (!file || fseek(file, 0, SEEK_END) || (size = ftell(file)) < 0
        || fseek(file, 0, SEEK_SET))
        return 2;
    data = malloc((size_t)size + 64);
    out = malloc((size_t)size * 5 + 8); /* at most one token a byte */
    if (!data || !out || fread(data, 1, (size_t)size, file) != (size_t)size)
        return 2;
    fclose(file);
    for (i = 0; i < SASHITE_RECORD_INDEXES; i++)
        records[i] = (i & 0xFF) ? (uint64_t)i : 0;
    sashite_build_gather_table();
    for (run = 0; run < runs; run++) {
        at = 0, k = 0;
        found = sashite_count_kernel(kernel)(data, size);
        if (sashite_decode_kernel(kernel)(data, size, &at, &k, found, out, records, 1, &bad)
                != SASHITE_DECODED
            || k != found) {
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
