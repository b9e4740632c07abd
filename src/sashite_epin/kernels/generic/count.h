/* Counting the tokens of a buffer, written once for every kernel that has it: a kernel's
 * header (kernels/KERNEL.h) includes this file once, after defining
 * - SASHITE_NAMED(f): f with the kernel's suffix (sashite_count becomes sashite_count_sse2);
 * - SASHITE_TARGET: the functions' target attribute (empty where the build targets it);
 * - SASHITE_SEP_MASK(p): the separator mask of p[0..63];
 * - SASHITE_POPCOUNT(x): the set bits of x;
 * and undefines them after.  No include guard: it is meant to be included again. */

/* How many runs of non-separators p[0..size-1] holds: a popcount of token starts (a
 * non-separator after a separator) per 64-byte block. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_count)(const unsigned char *p,
                                                             Py_ssize_t size) {
    Py_ssize_t b = 0, count = 0;
    uint64_t word, carry = 0; /* the previous block ended inside a token */
    unsigned char block[64];
    for (; size - b >= 64; b += 64) {
        word = ~SASHITE_SEP_MASK(p + b);
        count += SASHITE_POPCOUNT(word & ~((word << 1) | carry));
        carry = word >> 63;
    }
    if (b < size) {
        memset(block, 32, sizeof block);
        memcpy(block, p + b, (size_t)(size - b));
        word = ~SASHITE_SEP_MASK(block);
        count += SASHITE_POPCOUNT(word & ~((word << 1) | carry));
    }
    return count;
}
