/* Decoding a buffer's tokens into records, written once for every kernel that has it: a kernel's
 * header (kernels/KERNEL.h) includes this file once, after defining
 * - SASHITE_NAMED(f), SASHITE_TARGET: as for count.h;
 * - SASHITE_PREPARE: declarations the block needs, made once before the loop (or
 *   nothing);
 * - SASHITE_BLOCK(q, c, index): step 1, the classes and record indexes of q[0..63];
 * - SASHITE_COMPRESS(index, letters, to): step 3;
 * - SASHITE_WRITE(out, records, batch, m): step 4 (_kernels.h says what each does);
 * and undefines them after.  No include guard: it is meant to be included again. */

/* Decode the tokens of p[*at..size-1] into out (5-byte records, 8 bytes writable at
 * each) from record index *k on, at most count records in all.  p[*at - 1] (if any)
 * must end a token or be a separator.  records: SASHITE_RECORD_INDEXES 8-byte records,
 * by letter byte | flags << 8.  On SASHITE_STOPPED, *at is the start of the first token
 * not written, *k its index and *bad the first byte the grammar refuses (size when the
 * buffer ends with a modifier); the exact scanner goes on from there and hands back
 * after the token holding *bad.  In the block that fails, the tokens before that one
 * are written: the checks look only backwards, so no byte before *bad breaks a rule. */
SASHITE_TARGET static int SASHITE_NAMED(sashite_decode)(const unsigned char *p, Py_ssize_t size,
                                                       Py_ssize_t *at, Py_ssize_t *k_at,
                                                       Py_ssize_t count, unsigned char *out,
                                                       const uint64_t *records, int epin,
                                                       Py_ssize_t *bad_at) {
    Py_ssize_t pos = *at, k = *k_at, m = 0;
    /* The last block taken, its position and masks (last_pos < 0: none, or the loop
     * stopped right after a separator): where the token crossing out of it starts and
     * whether its letter was written come from these, never from a second read of the
     * buffer, which another thread may have changed since the block was checked. */
    Py_ssize_t last_pos = -1;
    uint64_t last_sep = 0, last_letter = 0;
    unsigned char pad[SASHITE_PAD];
    uint16_t index[64], batch[SASHITE_BATCH + 32 + 8];
    sashite_classes c;
    unsigned char before = pos > 0 ? p[pos - 1] : ' ';
    /* the classes of the byte before a block, as bit 0 of the shifted masks */
    uint64_t was_sep = sashite_is_sep(before), was_modifier = before == '+' || before == '-',
             was_letter = (unsigned char)((before | 0x20) - 'a') < 26,
             was_caret = before == '^';
    int status = SASHITE_DECODED;
    SASHITE_PREPARE
    while (pos < size) {
        const unsigned char *q = sashite_block_at(p, size, pos, before, pad);
        uint64_t bad, after_sep, after_letter;
        SASHITE_BLOCK(q, &c, index);
        if (!epin)
            c.apostrophe = 0; /* no class: fails the check below */
        after_sep = c.sep << 1 | was_sep;
        after_letter = c.letter << 1 | was_letter;
        bad = ~(c.sep | c.modifier | c.letter | c.caret | c.apostrophe)
              | (c.modifier & ~after_sep)
              | (c.letter & ~(after_sep | c.modifier << 1 | was_modifier))
              | (c.caret & ~after_letter)
              | (c.apostrophe & ~(after_letter | c.caret << 1 | was_caret))
              | (c.sep & (c.modifier << 1 | was_modifier));
        if (bad) {
            /* the tokens before the one holding the first refused byte r: each */
            /* ends with a separator before r, after which the failing token starts */
            int r = sashite_ctz64(bad);
            uint64_t seps = c.sep & ((UINT64_C(1) << r) - 1), before_token;
            *bad_at = pos + r;
            status = SASHITE_STOPPED;
            if (seps) {
                r = sashite_top64(seps) + 1;
                before_token = c.letter & ((UINT64_C(1) << r) - 1);
                if (sashite_popcount64(before_token) > count - k - m)
                    return SASHITE_OVERFLOW;
                m += SASHITE_COMPRESS(index, before_token, batch + m);
                pos += r;
                last_pos = -1; /* after a separator: nothing crosses */
            }
            break;
        }
        if (count - k - m < 32 && sashite_popcount64(c.letter) > count - k - m)
            return SASHITE_OVERFLOW;
        m += SASHITE_COMPRESS(index, c.letter, batch + m);
        if (m >= SASHITE_BATCH) {
            SASHITE_WRITE(out + 5 * k, records, batch, m);
            k += m, m = 0;
        }
        last_pos = pos, last_sep = c.sep, last_letter = c.letter;
        was_sep = c.sep >> 63, was_modifier = c.modifier >> 63;
        was_letter = c.letter >> 63, was_caret = c.caret >> 63;
        before = q[63];
        pos += 64;
    }
    SASHITE_WRITE(out + 5 * k, records, batch, m);
    k += m;
    if (status == SASHITE_DECODED && !was_modifier) {
        *at = size, *k_at = k;
        return SASHITE_DECODED;
    }
    if (status == SASHITE_DECODED) /* a buffer ending with a modifier */
        *bad_at = size;
    /* back to the start of the token crossing into the block where the loop stopped,
     * its record taken back if written (the exact scanner writes it again); a block
     * that passes has a separator (no token is longer than 4 bytes), and the crossing
     * token at most one letter */
    if (last_pos >= 0 && last_sep) {
        int s = sashite_top64(last_sep);
        *at = last_pos + s + 1, *k_at = k - ((last_letter >> s >> 1) != 0);
    } else {
        *at = pos < size ? pos : size, *k_at = k;
    }
    return SASHITE_STOPPED;
}
