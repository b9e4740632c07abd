/* Every C header of the compiled core that needs no Python.h, in one translation unit,
 * for compilers the Cython build is not run under here: .ci/checks compiles it with
 * MinGW-w64 (Windows x64, GCC's rules with Windows' headers and ABI), with
 * gcc-aarch64-linux-gnu, and with clang under MSVC's rules (as clang-cl, and as MSVC:
 * its own branches), -Wall -Wextra -Werror.  Py_ssize_t comes from Python.h in the
 * real build; its definition there is ptrdiff_t's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef ptrdiff_t Py_ssize_t;

#include "_kernels.h"
#include "_columns.h"
#include "_fixed.h"
#include "_formats.h"
#include "_records.h"
#include "_memory.h"
#include "_arrow.h"
#include "_strict.h"
#include "_placement.h"

/* Every kernel and reader called, so that each is compiled to code: a static function
 * nothing calls is only parsed, and some errors show in code alone (clang's, for an
 * intrinsic used outside its target).  Never run: the arguments only have to type. */
int64_t sashite_c_parts_use(int kernel, const unsigned char *p, Py_ssize_t n, unsigned char *out,
                            const uint64_t *records, uint16_t *codes, Py_ssize_t *starts) {
    Py_ssize_t at = 0, k = 0, bad = 0, b = 0, resume = 0;
    int64_t total = 0;
    unsigned char *cursor = out;
    sashite_count_fn count = sashite_count_kernel(kernel);
    sashite_decode_fn decode = sashite_decode_kernel(kernel);
    sashite_scan_fn scan = sashite_scan_kernel(kernel);
    sashite_rows_fn rows = sashite_rows_kernel(kernel);
    sashite_build_gather_table();
    total += sashite_kernel_runs(kernel) + count(p, n);
    if (decode != NULL)
        total += decode(p, n, &at, &k, n, out, records, 1, &bad);
    if (scan != NULL)
        total += scan(p, n, 1, codes, codes, starts, n, &b, &resume);
    if (rows != NULL)
        total += rows(p, n, 0, 1, records, (const int64_t *)starts, &b, (int64_t *)starts, out,
                      (int64_t *)starts, 0, &resume);
    total += sashite_fixed_lanes(kernel, 1, p, 0, n, 4, out, records, 1);
    total += sashite_strings_lanes(kernel, p, 0, n, out, records, 1);
    total += sashite_offsets_lanes(kernel, 0, p, p, 0, n, n, p, 0, out, records, 1);
    total += sashite_views_lanes(kernel, p, 0, n, p, 0, out, records, 1);
    total += sashite_export_fields_lanes(kernel, p, n, (int32_t *)starts, out, (int32_t *)starts,
                                         (int8_t *)out, (int8_t *)out, (int8_t *)out, out, out);
    total += sashite_join_lanes(kernel, p, n, &sashite_export_shapes, 1, &cursor, out + n);
    total += sashite_strict_stray(p, n, 1, kernel);
    sashite_placement_init();
    total += sashite_scan_placement(p, n, kernel, (int16_t *)codes, n, &at, (int32_t *)starts,
                                    out, n, &k, &b, &resume);
    total += sashite_board_fast(p, n, kernel, out, (int16_t *)codes, (int32_t *)starts, out,
                                &at, &k);
    total += sashite_format_placement((const int16_t *)codes, n, (const int32_t *)starts, out,
                                      k, kernel, (char *)out, n, &b);
    return total + (int64_t)sashite_records_length(p, (size_t)n);
}
