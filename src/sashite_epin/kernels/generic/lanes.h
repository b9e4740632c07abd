/* The loop of a lane reader, written once for every kernel that has lane readers
 * (AVX2, AVX-512, NEON): the readers of Arrow columns (_columns.h), str objects
 * (_strs.h) and numpy arrays (_fixed.h) include it inside their body, which has i (the
 * first entry), count (where the entries end), out (entry e's record goes to
 * out + 5 * e), records and epin, after defining
 * - SASHITE_LANES_STATE: what the groups need, declared once (the rule's constants);
 * - SASHITE_LANES_GROUP(I, TO): loads entries I..I+7 and, when all eight are tokens,
 *   writes their record indexes to TO[0..7] and is nonzero; else 0;
 * - SASHITE_LANES_WRITE(out, records, batch, m): a step 4 (_kernels.h).
 * It returns the first entry it did not write: the reader's exact loop goes on from
 * there.  No include guard: it is meant to be included again.
 *
 * Record indexes wait in a batch, narrowed to 16 bits (they are below 4096), and are
 * written in one counted loop by the step 4, so the loads and checks of the next
 * groups do not wait on the stores: under AVX2 and NEON one record at a time, under
 * AVX-512 eight by a gather and a byte permute. */
{
    uint16_t batch[SASHITE_LANES_BATCH];
    Py_ssize_t done = i, m = 0;
    SASHITE_LANES_STATE
    for (; count - i >= 8; i += 8) {
        if (!SASHITE_LANES_GROUP(i, batch + m))
            break;
        m += 8;
        if (m == SASHITE_LANES_BATCH) {
            SASHITE_LANES_WRITE(out + 5 * done, records, batch, m);
            done += m, m = 0;
        }
    }
    SASHITE_LANES_WRITE(out + 5 * done, records, batch, m);
    return i;
}
