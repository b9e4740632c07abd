/* The portable kernel where the compiler has no vector unit to target: built for x86-64
 * with the vector unit turned off (-mno-sse2 -mno-mmx), it must count tokens by SWAR exactly as a naive count does, and leave every token to the
 * exact scanner (no decode kernel).  tests/test_kernels.py builds and runs it; it prints
 * the buffers it checked and exits 0, or names the first difference and exits 1.  No
 * floating point: the build has no registers for it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef ptrdiff_t Py_ssize_t;

#include "_kernels.h"

#ifdef SASHITE_EPIN_VECTOR_LOOPS
#error "built with a vector unit: this check is for builds without one"
#endif

static uint64_t state = 88172645463325252u;

static unsigned next(unsigned n) { /* xorshift64, 0 .. n-1 */
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)(state % n);
}

static Py_ssize_t naive_count(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i, count = 0;
    for (i = 0; i < n; i++)
        count += !sashite_is_sep(p[i]) && (i == 0 || sashite_is_sep(p[i - 1]));
    return count;
}

int main(void) {
    static const unsigned char alphabet[] = " \t\n\r\x0b\x0c+-^'Kk1\x00\x85\x89\xa0\xff";
    unsigned char buffer[300];
    int run;
    (void)sashite_scan_kernel, (void)sashite_kernel_runs, (void)sashite_build_gather_table;
    if (sashite_decode_kernel(SASHITE_KERNEL_PORTABLE) != NULL) {
        puts("the portable kernel has a decode road without a vector unit");
        return 1;
    }
    for (run = 0; run < 200000; run++) {
        Py_ssize_t n = (Py_ssize_t)next(sizeof buffer + 1), i, want, got;
        for (i = 0; i < n; i++)
            buffer[i] = alphabet[next(sizeof alphabet - 1)];
        want = naive_count(buffer, n);
        got = sashite_count_kernel(SASHITE_KERNEL_PORTABLE)(buffer, n);
        if (got != want) {
            printf("run %d: %ld bytes, counted %ld, naive %ld\n", run, (long)n, (long)got,
                   (long)want);
            return 1;
        }
    }
    printf("%d buffers counted as the naive count does\n", run);
    return 0;
}
