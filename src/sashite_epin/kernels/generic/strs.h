/* The str reader of an x86 kernel (AVX2 or AVX-512), written once: _strs.h includes
 * this file once per kernel, after defining what kernels/generic/columns.h takes, and
 * undefines them after.  Items i.. to count - 1 in groups of eight (base: the first
 * item's slot, stride: between slots), records to out + 5 * i; returns the first item
 * not written (the group holding something else, or the last 1-7).  The group loader
 * is _strs.h's. */
SASHITE_TARGET static SASHITE_NOINLINE Py_ssize_t SASHITE_NAMED(sashite_str_lanes)(
    const char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t stride, unsigned char *out,
    const uint64_t *records, int epin)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_str_group8(base + (I) * stride, stride, &n, &w)                               \
     && SASHITE_INDEX8(n, w, epin, &keys, TO))
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}

/* The same under errors="mark": a group is never refused; an item that is no token
 * (or no exact compact-ASCII str of 1-4 characters) gets the zero record and its
 * position in marks[*marked ..] (room for count - i more), and the reading goes on.
 * Returns where the groups end (the last 1-7 items are the caller's). */
SASHITE_TARGET static SASHITE_NOINLINE Py_ssize_t SASHITE_NAMED(sashite_str_lanes_marking)(
    const char *base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t stride, unsigned char *out,
    const uint64_t *records, int epin, Py_ssize_t *marks, Py_ssize_t *marked)
{
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_str_group8_marking(base + (I) * stride, stride, &n, &w),                      \
     SASHITE_MARK8(n, w, epin, &keys, TO, 0xFFu, I, marks, marked), 1)
#include "lanes.h"
#undef SASHITE_LANES_GROUP
}
