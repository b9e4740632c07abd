/* Decoding a buffer's tokens under errors="mark", written once for every kernel that has
 * it: a kernel's header includes this file once, after defining what decode.h needs
 * (SASHITE_BLOCK must give the record indexes by byte position, not compressed) and
 * and undefines them after.  No include guard: it is meant to be included again.
 *
 * decode.h stops at the first block the grammar refuses a byte of, and the exact
 * scanner reads on from there: at half the tokens invalid every block stops, and the
 * exact scanner reads everything (ten times the clean buffer's time).  Here a refused
 * byte refuses only its token: that token gets the zero record (its slot's index set
 * to 0, whose record is 0) and its place in the compact mark columns, the rest of the
 * block goes on as decode.h writes it.  The exact code reads only the marked tokens
 * afterwards, for their reasons.
 *
 * Each block starts at a token's start (the byte before it a separator) and takes
 * the tokens that end inside it, up to its last separator; the next block starts
 * right after that separator.  So no token crosses a block: the checks need no
 * classes carried from the block before, and a token refused for a byte after its
 * letter never has its record written by an earlier block. */

/* The tokens of p[*at..size-1] (p[*at - 1], if any, a separator) into out from record
 * *k_at on, at most count records in all; each token the grammar refuses gets the zero
 * record and an entry in marks (its record index and start).  Returns
 * SASHITE_DECODED (*at = size), SASHITE_OVERFLOW (more tokens than count), or
 * SASHITE_STOPPED at a block of 64 bytes with no separator (a token longer than any
 * valid one: *at its start, *k_at its index, *bad_at = *at; the exact scanner marks it
 * and hands back). */
SASHITE_TARGET static int SASHITE_NAMED(sashite_decode_marks)(
    const unsigned char *p, Py_ssize_t size, Py_ssize_t *at, Py_ssize_t *k_at,
    Py_ssize_t count, unsigned char *out, const uint64_t *records, int epin,
    sashite_byte_marks *marks, Py_ssize_t *bad_at) {
    Py_ssize_t pos = *at, k = *k_at, m = 0, nm = marks->count;
    unsigned char pad[SASHITE_PAD];
    uint16_t index[64], batch[SASHITE_BATCH + 64 + 8]; /* AVX-512 compresses 32 + 32 */
    sashite_classes c;
    int status = SASHITE_DECODED;
    SASHITE_PREPARE
    while (pos < size) {
        /* bytes past the buffer's end are separators (the pad's) */
        const unsigned char *q = sashite_block_at(p, size, pos, ' ', pad);
        uint64_t nonsep, bad, starts, slots, reach;
        int last;
        SASHITE_BLOCK(q, &c, index);
        if (!epin)
            c.apostrophe = 0; /* no class: refused below */
        if (!c.sep) { /* a token of 64 bytes or more: the exact scanner's */
            *bad_at = pos;
            status = SASHITE_STOPPED;
            break;
        }
        last = sashite_top64(c.sep);
        reach = (UINT64_C(2) << last) - 1; /* bytes 0..last; all 64 when last is 63 */
        nonsep = ~c.sep;
        /* decode.h's check with a separator before the block */
        bad = ~(c.sep | c.modifier | c.letter | c.caret | c.apostrophe)
              | (c.modifier & ~(c.sep << 1 | 1))
              | (c.letter & ~(c.sep << 1 | 1 | c.modifier << 1))
              | (c.caret & ~(c.letter << 1))
              | (c.apostrophe & ~(c.letter << 1 | c.caret << 1))
              | (c.sep & c.modifier << 1);
        /* a separator refused after a modifier refuses the modifier's token */
        bad = ((bad & nonsep) | (bad & c.sep) >> 1) & reach;
        starts = nonsep & ~(nonsep << 1) & reach;
        slots = c.letter & reach; /* one a valid token: its letter */
        if (count - k - m < 32 && sashite_popcount64(starts) > count - k - m)
            return SASHITE_OVERFLOW; /* one record a token */
        if (bad) {
            /* Each token's first refused byte: adding the starts to the bytes not
             * refused carries through each token up to its first refused byte (a
             * valid token's carry stops on the separator after it). */
            uint64_t taken = nonsep & ~bad & reach;
            uint64_t first = (taken + starts) & ~taken & nonsep, refused = 0, x;
            for (x = first; x; x &= x - 1) {
                int b = sashite_ctz64(x);
                int s = sashite_top64(starts & ((UINT64_C(2) << b) - 1));
                int length = sashite_ctz64(c.sep >> s); /* its separator: b < last */
                uint64_t below = (UINT64_C(1) << s) - 1;
                refused |= ((UINT64_C(1) << length) - 1) << s;
                index[s] = 0; /* the zero record */
                /* its record index: one record for each token before it */
                marks->index[nm] = k + m + sashite_popcount64(starts & below);
                marks->start[nm] = pos + s;
                nm++;
            }
            slots = (slots & ~refused) | (starts & refused);
        }
        m += SASHITE_COMPRESS(index, slots, batch + m);
        if (m >= SASHITE_BATCH) {
            SASHITE_WRITE(out + 5 * k, records, batch, m);
            k += m, m = 0;
        }
        pos += last + 1;
    }
    SASHITE_WRITE(out + 5 * k, records, batch, m);
    k += m;
    if (pos > size)
        pos = size;
    marks->count = nm;
    *at = pos, *k_at = k;
    if (status == SASHITE_STOPPED)
        *bad_at = pos;
    return status;
}
