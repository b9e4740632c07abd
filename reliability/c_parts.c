/* Every C header of the compiled core that needs no Python.h, in one translation unit,
 * for compilers the Cython build is not run under here: .ci/checks compiles it with
 * MinGW-w64 (Windows x64, GCC's rules with Windows' headers and ABI) and with
 * gcc-aarch64-linux-gnu, -Wall -Wextra -Werror.  Py_ssize_t comes from Python.h in the
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
