# parse_many's input readers: part of the compiled core (included by _core_c.pyx,
# so the scanning tables stay private C arrays that inline).  Lists of str, byte
# buffers (split as bytes.split() splits, in two SIMD-assisted stages), numpy S / U
# arrays.  Its twin is _bulk_py.py; the result type is in _array_c.pxi.

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.buffer cimport (PyBUF_RECORDS_RO, PyBuffer_IsContiguous, PyBuffer_Release,
                             PyObject_CheckBuffer, PyObject_GetBuffer)
from cpython.dict cimport PyDict_GetItem
from cpython.exc cimport PyErr_Clear, PyErr_Occurred
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_AsDouble, PyFloat_Check
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memchr

import os as _os
import sys as _sys

from sashite_epin import _inputs

cdef extern from "Python.h":
    # Pointer forms of the str macros: the list loop touches items without refcounting.
    bint str_check "PyUnicode_Check"(PyObject* o)
    bint str_is_compact_ascii "PyUnicode_IS_COMPACT_ASCII"(PyObject* o)
    Py_ssize_t str_length "PyUnicode_GET_LENGTH"(PyObject* o)
    void* str_data "PyUnicode_DATA"(PyObject* o)
    PyObject** PySequence_Fast_ITEMS(object o)
    Py_ssize_t PySequence_Fast_GET_SIZE(object o)
    int PyUnicode_4BYTE_KIND
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)

cdef extern from *:
    """
    static inline PyObject* sashite_type_of(PyObject* o) { return (PyObject*)Py_TYPE(o); }
    """
    PyObject* type_of "sashite_type_of"(PyObject* o)

cdef extern from "_split.h" nogil:
    uint64_t sep_mask64 "sashite_sep_mask64"(const unsigned char* p)
    uint64_t load64 "sashite_load64"(const unsigned char* p)
    uint64_t load64_le "sashite_load64_le"(const unsigned char* p)
    uint64_t sep_bits_swar "sashite_sep_bits_swar"(uint64_t w)
    int ctz64 "sashite_ctz64"(uint64_t x)
    int top64 "sashite_top64"(uint64_t x)
    int popcount64 "sashite_popcount64"(uint64_t x)
    int64_t count_newlines "sashite_count_newlines"(const unsigned char* p, int64_t n)
    int64_t next_line_fault "sashite_next_line_fault"(const unsigned char* p, int64_t n,
                                                      int64_t start, int portable,
                                                      int64_t* newlines)
    bint is_sep "sashite_is_sep"(unsigned char b)

cdef extern from "_strs.h":
    ctypedef struct str_reader "sashite_str_reader":
        pass
    void str_reader_open "sashite_str_reader_open"(str_reader* r, Py_ssize_t count,
                                                   int kernel)
    void str_reader_close "sashite_str_reader_close"(str_reader* r)
    void str_reader_forget "sashite_str_reader_forget"(str_reader* r)
    Py_ssize_t str_records "sashite_str_records"(
        str_reader* r, const char* base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t stride,
        unsigned char* out, const uint64_t* records, int epin)
    void str_records_marking "sashite_str_records_marking"(
        str_reader* r, const char* base, Py_ssize_t i, Py_ssize_t count, Py_ssize_t stride,
        unsigned char* out, const uint64_t* records, int epin, Py_ssize_t* marks,
        Py_ssize_t* m)

cdef extern from "_fixed.h" nogil:
    # numpy S / U arrays of width 1-4 (wide: U), contiguous, and StringDType arrays:
    # elements i.. to count - 1, eight at a time under a kernel with lanes (AVX2,
    # AVX-512, NEON); each returns the first element it did not write (i itself under
    # a kernel without them).
    Py_ssize_t fixed_lanes "sashite_fixed_lanes"(
        int kernel, int wide, const unsigned char* base, Py_ssize_t i, Py_ssize_t count,
        Py_ssize_t w, unsigned char* out, const uint64_t* records, int epin)
    # The same under errors="mark" (the x86 kernels; i itself under others): elements
    # that are no token get the zero record and their positions in marks[m[0] ..]
    Py_ssize_t fixed_lanes_marking "sashite_fixed_lanes_marking"(
        int kernel, int wide, const unsigned char* base, Py_ssize_t i, Py_ssize_t count,
        Py_ssize_t w, unsigned char* out, const uint64_t* records, int epin,
        Py_ssize_t* marks, uint32_t* words, Py_ssize_t* m)
    Py_ssize_t strings_lanes_marking "sashite_strings_lanes_marking"(
        int kernel, const unsigned char* base, Py_ssize_t i, Py_ssize_t count,
        unsigned char* out, const uint64_t* records, int epin, Py_ssize_t* marks,
        Py_ssize_t* m)
    Py_ssize_t strings_lanes "sashite_strings_lanes"(
        int kernel, const unsigned char* base, Py_ssize_t i, Py_ssize_t count,
        unsigned char* out, const uint64_t* records, int epin)

cdef extern from "_kernels.h" nogil:
    enum:
        SASHITE_KERNEL_PORTABLE
        SASHITE_KERNEL_SSE2
        SASHITE_KERNEL_AVX2
        SASHITE_KERNEL_AVX512
        SASHITE_KERNEL_NEON
        SASHITE_KERNEL_COUNT
        SASHITE_DECODED
        SASHITE_STOPPED
        SASHITE_OVERFLOW
        SASHITE_FLAG_PLUS
        SASHITE_FLAG_MINUS
        SASHITE_FLAG_TERMINAL
        SASHITE_FLAG_DERIVED
        SASHITE_RECORD_INDEXES
    ctypedef Py_ssize_t (*count_fn "sashite_count_fn")(const unsigned char*, Py_ssize_t)
    ctypedef int (*decode_fn "sashite_decode_fn")(
        const unsigned char*, Py_ssize_t, Py_ssize_t*, Py_ssize_t*, Py_ssize_t,
        unsigned char*, const uint64_t*, int, Py_ssize_t*)
    ctypedef Py_ssize_t (*scan_fn "sashite_scan_fn")(
        const unsigned char*, Py_ssize_t, int, const unsigned short*, unsigned short*,
        Py_ssize_t*, Py_ssize_t, Py_ssize_t*, Py_ssize_t*)
    ctypedef Py_ssize_t (*rows_fn "sashite_rows_fn")(
        const unsigned char*, Py_ssize_t, Py_ssize_t, int, const uint64_t*, const int64_t*,
        Py_ssize_t*, int64_t*, unsigned char*, int64_t*, Py_ssize_t, Py_ssize_t*)
    uint64_t sep_mask64_portable "sashite_sep_mask64_portable"(const unsigned char* p)
    const char* kernel_name "sashite_kernel_name"(int kernel)
    bint kernel_runs "sashite_kernel_runs"(int kernel)
    bint cpuid_runs "sashite_cpuid_runs"(int kernel)
    # whether a kernel reads lists, Arrow columns and numpy arrays eight entries at a
    # time (AVX2, AVX-512, NEON)
    bint kernel_lanes "sashite_kernel_lanes"(int kernel)
    count_fn count_kernel "sashite_count_kernel"(int kernel)
    decode_fn decode_kernel "sashite_decode_kernel"(int kernel)
    scan_fn scan_kernel "sashite_scan_kernel"(int kernel)
    rows_fn rows_kernel "sashite_rows_kernel"(int kernel)
    void build_gather_table "sashite_build_gather_table"()
    ctypedef struct byte_marks "sashite_byte_marks":
        int64_t* index
        int64_t* start
        Py_ssize_t count
        Py_ssize_t room
    ctypedef int (*marks_fn "sashite_marks_fn")(
        const unsigned char*, Py_ssize_t, Py_ssize_t*, Py_ssize_t*, Py_ssize_t,
        unsigned char*, const uint64_t*, int, byte_marks*, Py_ssize_t*)
    marks_fn marks_kernel "sashite_marks_kernel"(int kernel)

cdef unsigned short keep_mask[6]              # shape bits a token of length 0..4, 5+ keeps
cdef unsigned short absent_fill[6]            # ... and the K_ABSENT classes after its end

# Whole-token check for the bulk loops: a token's first bytes, read as one integer with
# the bytes past its length masked off, must equal key_of[code] for the code its bytes
# suggest (guess_code).  key_of comes from format_token, so this only confirms what the
# grammar already accepted; anything else (an invalid token, a long one) goes to
# scan_token, which decides and gives the reason.
cdef uint64_t length_mask[8]            # keeps bytes 0..n-1 of a load (n < 5)
cdef uint64_t key_of[1024]              # any 10-bit guess indexes these two
cdef unsigned char length_of[1024]      # 0 where no token: never matches


cdef void build_bulk_tables() noexcept nogil:
    cdef int b
    for b in range(6):
        # Lengths 0 and 5+ get class 7 at position 0: a shape no token has (entry 0).
        keep_mask[b] = (1 << (3 * b)) - 1 if 1 <= b <= 4 else 0
        absent_fill[b] = absent_tail(b) if 1 <= b <= 4 else 7
    build_keys()


cdef void build_keys() noexcept nogil:
    cdef unsigned char padded[8]
    cdef int code, n
    for n in range(8):
        memset(padded, 0, 8)
        memset(padded, 0xFF, n if n < 5 else 0)
        length_mask[n] = load64(padded)
    for code in range(1024):
        memset(padded, 0, 8)
        length_of[code] = 0
        if code < CODE_LIMIT:
            length_of[code] = token_length[code]
            memcpy(padded, token_bytes[code], token_length[code])
        key_of[code] = load64(padded)


cdef inline int lookup_code(const unsigned char* q, Py_ssize_t n, int forbidden) noexcept nogil:
    """The code of the n-byte token at q (8 bytes readable there), or -1: then ask
    scan_token.  forbidden: code bits the notation lacks (1, derived, for PIN)."""
    cdef Py_ssize_t nn = n if n < 8 else 7
    cdef uint64_t key = load64(q) & length_mask[nn]
    cdef int code = guess_code(q, nn)
    if key_of[code] != key or length_of[code] != n or code & forbidden:
        return -1
    return code


cdef inline int guess_code(const unsigned char* q, Py_ssize_t nn) noexcept nogil:
    """The code q[0..nn-1] would have if it were a token (q[0] below 'A': a '+'/'-'
    first), arithmetic only; any 10-bit value, checked against key_of by the caller."""
    cdef int modified = q[0] < 0x40
    # Bit 1 of '+' (0x2B) is 1 = RANK_ENHANCED, of '-' (0x2D) 0 = RANK_DIMINISHED.
    cdef int rank = RANK_NORMAL - modified * (RANK_NORMAL - ((q[0] >> 1) & 1))
    cdef int terminal = q[modified + 1] == 0x5E
    cdef int derived = q[nn - 1] == 0x27
    return (letter_bits(q[modified]) | compose_code(0, 0, rank, terminal, derived)) & 1023


cdef inline int fast_code(unsigned char b0, unsigned char b1, unsigned char b2,
                          unsigned char b3, Py_ssize_t n, bint epin) noexcept nogil:
    """scan_token without a data-dependent branch, for the bulk loops: b0..b3 are the
    token's first bytes (anything past its end), n its length.  The code, or -1."""
    cdef Py_ssize_t nn = n if n < 5 else 5
    cdef unsigned int shape = (byte_class[b0] | (byte_class[b1] << 3)
                               | (byte_class[b2] << 6) | (byte_class[b3] << 9))
    cdef unsigned short entry
    shape = (shape & keep_mask[nn]) | absent_fill[nn]
    entry = epin_shapes[shape] if epin else pin_shapes[shape]
    if not entry & SHAPE_VALID:
        return -1
    return letter_bits(b1 if entry & SHAPE_LETTER_AT else b0) | (entry & LOW_BITS)


build_bulk_tables()


# ---------------------------------------------------------------------------------
# The bytes kernel: which one runs, and the record table it writes from.

# Kernel names by number (SASHITE_KERNEL_*); the best this CPU runs is chosen at import
# (best first: a higher number, where a build has two for one CPU).  Where the AVX-512
# kernel has no loop of its own (the lanes, the export, to_bytes), it runs AVX2's.
cdef tuple KERNEL_NAMES = tuple(kernel_name(i).decode() for i in range(SASHITE_KERNEL_COUNT))
cdef uint64_t records_by_index[SASHITE_RECORD_INDEXES]  # letter byte | flags << 8
cdef unsigned short code_of_index[SASHITE_RECORD_INDEXES]  # the same tokens' codes
cdef int bytes_kernel_id = SASHITE_KERNEL_PORTABLE
cdef count_fn count_bytes = count_kernel(SASHITE_KERNEL_PORTABLE)
cdef decode_fn decode_bytes = decode_kernel(SASHITE_KERNEL_PORTABLE)
cdef scan_fn scan_blocks = scan_kernel(SASHITE_KERNEL_PORTABLE)  # scan_many's (_text_c.pxi)
cdef rows_fn rows_blocks = rows_kernel(SASHITE_KERNEL_PORTABLE)  # tokenize_many's (_text_c.pxi)
cdef marks_fn decode_marks = NULL  # the decode loop under errors="mark", or NULL


cdef void build_records_by_index() noexcept nogil:
    """The kernels' tables: for each letter byte and the flags read around it, the
    record and the code of the token they make (from the core's own codes)."""
    cdef int letter, flags, rank, code
    build_gather_table()
    memset(records_by_index, 0, sizeof(records_by_index))
    for letter in range(256):
        if not (65 <= letter <= 90 or 97 <= letter <= 122):
            continue
        for flags in range(16):
            if flags & SASHITE_FLAG_PLUS and flags & SASHITE_FLAG_MINUS:
                continue  # a byte cannot be both
            rank = (RANK_ENHANCED if flags & SASHITE_FLAG_PLUS else
                    RANK_DIMINISHED if flags & SASHITE_FLAG_MINUS else RANK_NORMAL)
            code = letter_bits(letter) | compose_code(
                0, 0, rank, 1 if flags & SASHITE_FLAG_TERMINAL else 0,
                1 if flags & SASHITE_FLAG_DERIVED else 0)
            memcpy(&records_by_index[letter | flags << 8], record_of[code], 8)
            code_of_index[letter | flags << 8] = <unsigned short>code


build_records_by_index()

# The kernels this build runs on this CPU, best first.
KERNELS = tuple(KERNEL_NAMES[i] for i in reversed(range(SASHITE_KERNEL_COUNT))
                if kernel_runs(i))


def cpuid_kernels():
    """The x86 kernels that CPUID and XGETBV say this CPU runs, best first: how every
    build chooses.  For tests: they hold it against the system's reading of the CPU."""
    return tuple(KERNEL_NAMES[i] for i in (SASHITE_KERNEL_AVX512, SASHITE_KERNEL_AVX2)
                 if cpuid_runs(i))


def bytes_kernel():
    """The name of the kernel parse_many uses for byte buffers and Arrow string
    columns, and a result's Arrow export and to_bytes() for their output."""
    return KERNEL_NAMES[bytes_kernel_id]


def use_bytes_kernel(name):
    """Make parse_many use kernel `name` (one of KERNELS) for byte buffers and Arrow
    string columns, and the Arrow export and to_bytes() for their output; returns the
    one used before.  For tests and benchmarks: every kernel gives the same results."""
    global bytes_kernel_id, count_bytes, decode_bytes, scan_blocks, rows_blocks, decode_marks
    if name not in KERNELS:
        raise ValueError(f"the bytes kernel must be one of {', '.join(KERNELS)} "
                         f"(what this build runs on this CPU), not {name!a}")
    before = bytes_kernel()
    bytes_kernel_id = KERNEL_NAMES.index(name)
    count_bytes = count_kernel(bytes_kernel_id)
    decode_bytes = decode_kernel(bytes_kernel_id)
    scan_blocks = scan_kernel(bytes_kernel_id)
    rows_blocks = rows_kernel(bytes_kernel_id)
    decode_marks = marks_kernel(bytes_kernel_id)
    return before


cdef void choose_bytes_kernel() except *:
    forced = _os.environ.get("SASHITE_EPIN_KERNEL", "").strip().lower()
    if not forced:
        use_bytes_kernel(KERNELS[0])
    elif forced in KERNELS:
        use_bytes_kernel(forced)
    else:
        raise ImportError(f"SASHITE_EPIN_KERNEL={forced!a}: this build runs "
                          f"{', '.join(KERNELS)} on this CPU (or leave it unset for the best)")


choose_bytes_kernel()


cdef struct Failure:
    Py_ssize_t index    # which token
    Py_ssize_t start    # where it starts (bytes) or its element (arrays)
    Py_ssize_t length
    int reason


# ---------------------------------------------------------------------------------
# parse_many


# How many items of a foreign iterable are read (and checked) at a time: the input is
# never materialised whole, and a wrong item type fails before anything big is built.
DEF ITERABLE_CHUNK = 16384
# numpy StringDType arrays are read this many elements at a time.
DEF STRING_DTYPE_CHUNK = 65536


def parse_many(tokens, bint epin, errors="raise"):
    """Parse many tokens at once into a TokenArray; see Pin.parse_many / Epin.parse_many."""
    cdef bint mark
    if errors == "raise":
        mark = False
    elif errors == "mark":
        mark = True
    else:
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    know_missing_types()  # what may run Python code, before any item is read
    if isinstance(tokens, (list, tuple)):
        # The list's or tuple's own items and size (a subclass's __len__ or __iter__ is
        # not asked, as CPython's own functions read them).
        # Free-threaded, other threads run beside this one and may resize the list or
        # replace its items while it is read: it is read under the list's own lock (no
        # cost with the GIL).  The lock holds as long as this thread runs no Python code,
        # and parse_objects runs none until it stops reading items (a ParseError's
        # constructor is the last thing it calls).
        with cython.critical_section(tokens):
            return parse_objects(<const char*>PySequence_Fast_ITEMS(tokens),
                                 PySequence_Fast_GET_SIZE(tokens),
                                 sizeof(PyObject*), 0, epin, mark, tokens)
    if isinstance(tokens, str):
        raise TypeError("parse_many takes many tokens (a list of str, a bytes-like object "
                        "or a numpy array), not one str")
    whole = pyarrow_types().get(type(tokens))
    if whole is not None:
        # A pyarrow array, chunked array, batch or table, by its exact type: read
        # without input_kind's Python checks (a microsecond, most of a small batch's
        # fixed cost).  Its reader refuses a column of other than strings; the
        # TypeError is then check_strings' own, worded as input_kind words it.
        try:
            if whole:
                return parse_arrow_array(tokens, epin, mark)
            return parse_arrow_stream(tokens, epin, mark)
        except TypeError:
            _inputs.check_strings(tokens, "parse_many")
            raise
    kind = _inputs.input_kind(tokens)
    if kind == _inputs.ARROW_ARRAY:
        return parse_arrow_array(tokens, epin, mark)
    if kind == _inputs.ARROW_STREAM:
        return parse_arrow_stream(tokens, epin, mark)
    if kind == _inputs.OBJECTS:  # a pandas object Series or Index: its numpy array
        return parse_buffer(tokens.to_numpy(), epin, mark)
    if kind == _inputs.STRING_DTYPE:
        return parse_string_dtype(tokens, epin, mark)
    if PyObject_CheckBuffer(tokens):
        return parse_buffer(tokens, epin, mark)
    return parse_iterable(tokens, epin, mark)


# pyarrow's own column types (arrays, chunked arrays, record batches, tables), each
# mapped to whether it is read as one array (it has __arrow_c_array__, as input_kind
# asks) or as a stream; found in the pyarrow.lib loaded now, looked up again when that
# changes.  A RecordBatchReader is not among them: its stream is read once, and
# check_strings must see it first.
cdef object pyarrow_lib = None
cdef dict pyarrow_kinds = {}


cdef dict pyarrow_types():
    global pyarrow_lib, pyarrow_kinds
    cdef dict modules = _sys.modules
    cdef PyObject* now = PyDict_GetItem(modules, "pyarrow.lib")
    lib = <object>now if now != NULL else None
    if lib is pyarrow_lib:
        return pyarrow_kinds
    if lib is not None and _inputs.initializing(lib):
        return {}  # another thread still imports it: its classes are not all made yet
    kinds = {}
    bases = tuple(getattr(lib, name, None) for name in
                  ("Array", "ChunkedArray", "RecordBatch", "Table"))
    if lib is not None and all(isinstance(base, type) for base in bases):
        for cls in list(vars(lib).values()):
            if (isinstance(cls, type) and issubclass(cls, bases)
                    and _inputs.module_of_class(cls) == "pyarrow.lib"):
                kinds[cls] = hasattr(cls, "__arrow_c_array__")
    pyarrow_lib, pyarrow_kinds = lib, kinds
    return kinds


cdef TokenArray parse_iterable(object tokens, bint epin, bint mark):
    cdef list parts = []
    cdef Py_ssize_t done = 0
    cdef list chunk
    from itertools import islice  # here, not at import: only iterables need it
    try:
        iterator = iter(tokens)
    except TypeError:
        raise TypeError("parse_many takes a list of str, a bytes-like object, a numpy "
                        "array or an Arrow string column, not "
                        f"{type(tokens).__name__}") from None
    while True:
        chunk = list(islice(iterator, ITERABLE_CHUNK))
        if not chunk:
            break
        parts.append(parse_objects(<const char*>PySequence_Fast_ITEMS(chunk), len(chunk),
                                   sizeof(PyObject*), done, epin, mark))
        done += len(chunk)
        # An iterator written in C (a list's, map over a builtin) runs no bytecode, so
        # Python itself would not look for signals: Ctrl-C stops a long one here.
        PyErr_CheckSignals()
    return concatenate(parts, epin)


# The types whose objects are missing values besides None and float NaN, as
# _inputs.missing_types finds them (pandas.NA's and pandas.NaT's; numpy's float scalars
# that are not float, missing when NaN), held here so that is_missing compares type
# pointers only.  Looked up again when a module they come from changed in sys.modules
# (pandas or numpy imported since, or replaced), before any item is read: a lookup may
# run Python code.
DEF MISSING_TYPES = 8
cdef object missing_held = ()  # the tuples below and the modules they came from
cdef PyObject* missing_always[MISSING_TYPES]
cdef PyObject* missing_nan[MISSING_TYPES]
cdef Py_ssize_t missing_always_count = 0, missing_nan_count = 0
cdef PyObject* missing_from[3]  # the modules (NULL: not imported; None: never looked)
cdef bint missing_known = False


cdef int know_missing_types() except -1:
    """Before a bulk call reads items: the missing types of the modules loaded now."""
    global missing_held, missing_always_count, missing_nan_count, missing_known
    cdef dict modules = _sys.modules
    cdef PyObject* now[3]
    cdef Py_ssize_t i
    now[0] = PyDict_GetItem(modules, "pandas._libs.missing")
    now[1] = PyDict_GetItem(modules, "pandas._libs.tslibs.nattype")
    now[2] = PyDict_GetItem(modules, "numpy")
    if (missing_known and now[0] == missing_from[0] and now[1] == missing_from[1]
            and now[2] == missing_from[2]):
        return 0
    always, nan = _inputs.missing_types()
    always, nan = tuple(always)[:MISSING_TYPES], tuple(nan)[:MISSING_TYPES]
    held = [always, nan]
    half_made = False  # a module another thread still imports: looked up again next call
    for i in range(3):  # held too, so that a module freed cannot pass for a new one
        held.append(<object>now[i] if now[i] != NULL else None)
        missing_from[i] = now[i]
        half_made = half_made or (now[i] != NULL and _inputs.initializing(<object>now[i]))
    missing_held = held
    for i, t in enumerate(always):
        missing_always[i] = <PyObject*>t
    for i, t in enumerate(nan):
        missing_nan[i] = <PyObject*>t
    missing_always_count, missing_nan_count = len(always), len(nan)
    missing_known = not half_made
    return 0


cdef inline bint is_missing(PyObject* item) noexcept:
    """_inputs.is_missing, running no Python code (the items must not move under us):
    the type's pointer compared with those know_missing_types found, a float's value
    read from its storage, a numpy float's by numpy's own C conversion."""
    cdef double value
    cdef Py_ssize_t j
    cdef PyObject* kind
    if <object>item is None:
        return True
    kind = type_of(item)
    # The known types first: a float subclass check walks the type's bases, which for
    # pandas' NA, a column's every other item, cost its read a third of its time.
    for j in range(missing_always_count):
        if kind == missing_always[j]:
            return True
    if PyFloat_Check(<object>item):
        value = PyFloat_AS_DOUBLE(<object>item)
        return value != value
    for j in range(missing_nan_count):
        if kind == missing_nan[j]:
            value = PyFloat_AsDouble(<object>item)
            if value == -1.0 and PyErr_Occurred() != NULL:
                PyErr_Clear()
                return False
            return value != value
    return False


# Entries read by the precise code after a marked one, before the fast loop again;
# and bytes of a byte buffer.
DEF DENSE_ENTRIES = 32
DEF DENSE_BYTES = 256


cdef TokenArray parse_objects(const char* base, Py_ssize_t count, Py_ssize_t stride,
                              Py_ssize_t first, bint epin, bint mark, object owner=None):
    """The items base[0], base[stride], ... (PyObject pointers: a list's, a tuple's, a
    numpy object array's); errors name index first + i.  No Python code runs inside a
    piece (no allocation, no callbacks), so the items cannot change under it while the
    GIL is held.  Between pieces pending signals are checked (Ctrl-C stops a long list),
    and a handler or a collection may run Python code there: the items are then read
    afresh, and owner, the list they belong to (None for an array, a tuple, a private
    chunk: none of those can move), must still hold them where they were."""
    cdef Py_ssize_t i, stop, k = 0
    cdef TokenArray result = new_token_array(count, epin)
    cdef unsigned char* out = result.records
    cdef MarkList marked = MarkList(NULL, 0, 0)
    cdef str_reader reader
    # errors="mark": the marked entries' positions and reasons, as columns, the
    # positions first written by the fast loop (every entry it refuses)
    cdef Py_ssize_t* refused = NULL
    cdef unsigned char* reasons = NULL
    if mark:
        refused = <Py_ssize_t*>records_alloc(count * sizeof(Py_ssize_t) + 64)
        reasons = <unsigned char*>records_alloc(count + 64)
        if refused == NULL or reasons == NULL:
            records_free(refused)
            records_free(reasons)
            raise MemoryError()
    str_reader_open(&reader, count, bytes_kernel_id)
    try:
        i = stop = 0
        while stop < count:
            if stop:
                PyErr_CheckSignals()
                str_reader_forget(&reader)
                if owner is not None and (PySequence_Fast_GET_SIZE(owner) != count or
                                          <const char*>PySequence_Fast_ITEMS(owner) != base):
                    raise RuntimeError("the list changed while parse_many read it")
            stop = min(count, i + piece_entries())
            if mark:
                i = mark_piece(&reader, base, i, stop, stride, first, epin, out, refused,
                               reasons, &k)
            else:
                i = parse_piece(&reader, base, i, stop, stride, first, epin, mark, out,
                                &marked)
        if k:
            set_mark_columns(result, refused, k,
                             marked_items(base, stride, refused, reasons, k))
    finally:
        records_free(refused)
        records_free(reasons)
        str_reader_close(&reader)
        mark_list_free(&marked)
    return result


cdef object marked_items(const char* base, Py_ssize_t stride, const Py_ssize_t* at,
                         const unsigned char* reasons, Py_ssize_t n):
    """The rejected entries of parse_objects as columns (_marks.MarkedObjects): the
    items marked (references, no object made; a tuple, which no code can change while
    the export reads it) and their reasons, one byte each."""
    cdef Py_ssize_t i
    cdef tuple items = PyTuple_New(n)
    cdef PyObject* item
    for i in range(n):
        item = (<PyObject**>(base + at[i] * stride))[0]
        Py_INCREF(<object>item)
        PyTuple_SET_ITEM(items, i, <object>item)
    return _marks.MarkedObjects(items, PyBytes_FromStringAndSize(<const char*>reasons, n))


cdef Py_ssize_t mark_piece(str_reader* reader, const char* base, Py_ssize_t i,
                           Py_ssize_t stop, Py_ssize_t stride, Py_ssize_t first, bint epin,
                           unsigned char* out, Py_ssize_t* refused, unsigned char* reasons,
                           Py_ssize_t* kept) except -1:
    """parse_piece under errors="mark": the fast loop (_strs.h) reads every item,
    writing the zero record at each it refuses and appending its position to refused
    (from kept[0]); then the exact code reads only those (a missing value, a wrong
    type, a str subclass or non-ASCII str that is a token after all, every reason),
    keeping the marked ones' positions and reasons from kept[0] on.  Returns stop."""
    cdef PyObject* item
    cdef int code
    cdef Py_ssize_t j, k = kept[0], m = kept[0]
    str_records_marking(reader, base, i, stop, stride, out, records_by_index, epin,
                        refused, &m)
    for j in range(k, m):
        i = refused[j]
        item = (<PyObject**>(base + i * stride))[0]
        if <object>item is None:
            code = -R_MISSING
        elif not str_check(item):
            if not is_missing(item):
                raise TypeError(f"item {first + i} is {type(<object>item).__name__}, "
                                "not str")
            code = -R_MISSING
        elif str_is_compact_ascii(item):
            code = scan_token(<const unsigned char*>str_data(item), str_length(item), epin)
        else:
            code = scan_str(<object>item, epin)
        if code >= 0:
            memcpy(out + 5 * i, record_of[code], 5)  # the next record is written already
        else:
            refused[k] = i
            reasons[k] = <unsigned char>-code
            k += 1
    kept[0] = k
    return stop


cdef Py_ssize_t parse_piece(str_reader* reader, const char* base, Py_ssize_t i,
                            Py_ssize_t stop, Py_ssize_t stride, Py_ssize_t first, bint epin,
                            bint mark, unsigned char* out, MarkList* marked) except -1:
    """parse_objects' items i .. stop - 1; returns stop."""
    cdef PyObject* item
    cdef int code
    cdef Py_ssize_t precise_until = 0
    # Fast loop (_strs.h): exact, compact-ASCII str items that are valid tokens, eight
    # at a time under the SIMD kernels.  It stops at any other item; the precise code
    # below reads that one (every error and reason) and hands the rest back to it,
    # except close after a marked entry: where marks come close together (a column
    # half missing), the fast loop would stop again at once, its set-up each time.
    i = str_records(reader, base, i, stop, stride, out, records_by_index, epin)
    while i < stop:
        item = (<PyObject**>(base + i * stride))[0]
        if not str_check(item):
            if not is_missing(item):
                raise TypeError(f"item {first + i} is {type(<object>item).__name__}, "
                                "not str")
            code = -R_MISSING
        elif str_is_compact_ascii(item):
            code = scan_token(<const unsigned char*>str_data(item), str_length(item), epin)
        else:
            code = scan_str(<object>item, epin)
        if code >= 0:
            memcpy(out + 5 * i, record_of[code], 8)
        elif not mark:
            raise _ParseError(<object>item, _reason_text(-code, notation_of(epin)),
                              notation_of(epin), first + i)
        else:
            memset(out + 5 * i, 0, 5)
            if mark_add(marked, i, i, 0, -code) < 0:
                raise MemoryError()
            # Close after the last mark: marks come close together here
            if (marked.count >= 2
                    and i - marked.items[marked.count - 2].index < DENSE_ENTRIES):
                precise_until = i + DENSE_ENTRIES
        i += 1
        if i >= precise_until:
            i = str_records(reader, base, i, stop, stride, out, records_by_index, epin)
    return stop


cdef TokenArray parse_buffer(object obj, bint epin, bint mark):
    cdef Py_buffer view
    cdef bytes fmt
    PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO)
    try:
        fmt = view.format if view.format != NULL else b"B"
        if fmt == b"O":
            return parse_object_array(&view, epin, mark)
        if fmt[-1:] in (b"s", b"w"):
            return parse_fixed_width(&view, fmt[-1:] == b"w", fmt, epin, mark)
        if view.itemsize != 1 or fmt.lstrip(b"@=<>!") not in (b"B", b"b", b"c"):
            raise TypeError(f"parse_many reads bytes, or numpy arrays of dtype S or U; "
                            f"not a buffer of format {fmt.decode('ascii', 'replace')!a}")
        if not PyBuffer_IsContiguous(&view, b'C'):
            raise ValueError("parse_many needs a contiguous bytes buffer "
                             "(copy it first, e.g. bytes(view))")
        return parse_bytes(<const unsigned char*>view.buf, view.len, epin, mark, obj)
    finally:
        PyBuffer_Release(&view)


cdef TokenArray parse_object_array(Py_buffer* view, bint epin, bint mark):
    if view.ndim != 1:
        raise ValueError(f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional")
    return parse_objects(<const char*>view.buf, view.shape[0], view.strides[0], 0, epin, mark)


cdef inline uint64_t block_mask(const unsigned char* p, Py_ssize_t size, Py_ssize_t b,
                                bint portable) noexcept nogil:
    """Separator mask of the 64 bytes from b (past the end: separators); portable: in
    plain C whatever the CPU has, as the portable kernel reads everywhere."""
    cdef unsigned char block[64]
    if size - b < 64:
        memset(block, 32, 64)
        memcpy(block, p + b, size - b)
        p, b = block, 0
    return sep_mask64_portable(p + b) if portable else sep_mask64(p + b)


cdef int split_and_scan(const unsigned char* p, Py_ssize_t size, Py_ssize_t count,
                        bint epin, bint mark, unsigned char* out, Failure* failure,
                        byte_marks* marked, Py_ssize_t* at_, Py_ssize_t* k_) noexcept nogil:
    """Scan the whitespace-separated tokens of p from *at_ (a token start or a separator)
    to size (the buffer's end, or a separator: a piece of it) into out from record *k_
    on, both moved past what was read; 1 on a failure to report (failure filled), 2 when
    p holds more than count tokens, 0 otherwise.  (The caller checks that the whole
    buffer held exactly count.)

    count comes from a first pass, and nothing holds the buffer still between the two
    (another thread may write into a bytearray, another process into a mapped file):
    out has room for count records only, so that is checked, never assumed.

    The bytes kernel (_kernels.h) writes runs of valid tokens; where it stops, the exact
    scanner reads the token holding the first byte the kernel refused, then hands
    back.  Under errors="mark", from the first block the kernel refuses on, its marking
    loop (kernels/generic/marks.h) reads the rest of the piece where the kernel has one:
    each refused token marked, the others written as the kernel writes them."""
    cdef Py_ssize_t bad = 0
    cdef int status
    cdef bint marking = False
    if at_[0] >= size:
        return 0
    if decode_bytes == NULL:  # a portable kernel built with no vector unit to target
        return scan_exactly(p, size, at_, k_, size, count, epin, mark, out, failure, marked)
    while True:
        if marking:
            status = decode_marks(p, size, at_, k_, count, out, records_by_index, epin,
                                  marked, &bad)
        else:
            status = decode_bytes(p, size, at_, k_, count, out, records_by_index, epin, &bad)
        if status == SASHITE_OVERFLOW:
            return 2
        if status == SASHITE_STOPPED:
            if mark and decode_marks != NULL and not marking:
                marking = True  # the marking loop reads from the block refused
                continue
            status = scan_exactly(p, size, at_, k_, bad, count, epin, mark, out, failure,
                                  marked)
            if status != 0:
                return status
        if at_[0] >= size:
            return 0


cdef int scan_exactly(const unsigned char* p, Py_ssize_t size, Py_ssize_t* at,
                      Py_ssize_t* k_at, Py_ssize_t limit, Py_ssize_t count, bint epin,
                      bint mark, unsigned char* out, Failure* failure,
                      byte_marks* marked) noexcept nogil:
    """split_and_scan's exact part: the tokens from *at (a token start, or a separator)
    on, each judged by scan_token, up to the first that ends at limit or after it (the
    byte the kernel refused lies in it or ends it); *at and *k_at are then where the
    kernel goes on, past that token's separator.  Statuses as split_and_scan's.

    Two stages per 64-byte block: separator masks give every token start and end at
    once (bit tricks, no per-byte branch); then each token is decoded on its own, so
    consecutive tokens do not wait on each other.  A start with no end yet (a token
    crossing blocks) waits in starts[0] for the next block."""
    cdef Py_ssize_t b = at[0], k = k_at[0], s, n, safe = size - 8, pending = -1, j
    cdef Py_ssize_t starts[34]  # at most 32 starts in 64 bytes, plus a pending one
    cdef int code, taken, have, forbidden = 0 if epin else 1
    cdef uint64_t word, begins, ends, carry = 0
    cdef bint portable = bytes_kernel_id == SASHITE_KERNEL_PORTABLE
    while b < size or (b == size and carry):  # the extra block ends a token at size
        word = ~block_mask(p, size, b, portable)  # bit set: inside a token
        begins = word & ~((word << 1) | carry)
        ends = ~word & ((word << 1) | carry)  # the separator right after a token
        carry = word >> 63
        have = 0
        if pending >= 0:
            starts[0] = pending
            have = 1
        while begins:
            starts[have] = b + ctz64(begins)
            have += 1
            begins &= begins - 1
        taken = 0
        while ends:
            if k == count:
                return 2
            s = starts[taken]
            taken += 1
            n = b + ctz64(ends) - s
            ends &= ends - 1
            code = lookup_code(p + s, n, forbidden) if s <= safe else -1
            if code < 0:
                code = scan_token(p + s, n, epin)
                if code < 0:
                    if not mark:
                        failure.index, failure.start = k, s
                        failure.length, failure.reason = n, -code
                        return 1
                    memset(out + 5 * k, 0, 8)
                    k += 1
                    if marked.count == marked.room:  # one a token: the buffer changed
                        return 2
                    j = marked.count
                    marked.index[j], marked.start[j] = k - 1, s
                    marked.count += 1
                    # Marks come close together (half the tokens invalid) and the kernel
                    # has no marking loop: read on here a while, rather than hand each
                    # stretch back to the kernel only to be stopped again at once.  Only
                    # then: a rare mark hands back at once (0.1 % invalid stays at the
                    # kernel's speed).
                    if (decode_marks == NULL and j >= 1
                            and s - marked.start[j - 1] < DENSE_BYTES):
                        limit = max(limit, s + n + DENSE_BYTES)
                else:
                    memcpy(out + 5 * k, record_of[code], 8)
                    k += 1
            else:
                memcpy(out + 5 * k, record_of[code], 8)
                k += 1
            if s + n >= limit:
                at[0] = s + n + 1 if s + n < size else size
                k_at[0] = k
                return 0
        pending = starts[taken] if taken < have else -1
        b += 64
    at[0] = size
    k_at[0] = k
    return 0


def use_piece_size(Py_ssize_t size):
    """Make byte buffers read size bytes a piece (to the next separator); returns the
    size used before.  For tests: pieces must not change any result."""
    global piece_size
    if size < 1:
        raise ValueError(f"a piece is at least 1 byte, not {size}")
    before, piece_size = piece_size, size
    return before


cdef inline Py_ssize_t piece_end(const unsigned char* p, Py_ssize_t size,
                                 Py_ssize_t at) noexcept nogil:
    """Where the piece of a byte buffer read from at ends: the first separator
    piece_size bytes on (no token crosses it), or the buffer's end."""
    cdef Py_ssize_t end = at + piece_size
    if end >= size:
        return size
    while end < size and not is_sep(p[end]):
        end += 1
    return end


cdef TokenArray parse_bytes(const unsigned char* p, Py_ssize_t size, bint epin, bint mark,
                            object owner):
    cdef Py_ssize_t count = 0, at = 0, k = 0, end
    cdef TokenArray result
    cdef Failure failure
    cdef byte_marks marked
    cdef int status
    memset(&marked, 0, sizeof(marked))
    # A piece at a time, pending signals checked between (Ctrl-C stops a long call).
    while at < size:
        with nogil:
            end = piece_end(p, size, at)
            count += count_bytes(p + at, end - at)
        at = end
        if at < size:
            PyErr_CheckSignals()
    result = new_token_array(count, epin)
    if mark:
        mark_columns(&marked, count)
    try:
        at = 0
        while True:
            with nogil:
                end = piece_end(p, size, at)
                status = split_and_scan(p, end, count, epin, mark, result.records, &failure,
                                        &marked, &at, &k)
            if status != 0 or end >= size:
                break
            PyErr_CheckSignals()
        if status == 0 and k != count:
            status = 2
        if status == 2:
            raise RuntimeError("the buffer changed while parse_many read it")
        if status > 0:
            raise _ParseError(<bytes>p[failure.start:failure.start + failure.length],
                              _reason_text(failure.reason, notation_of(epin)),
                              notation_of(epin), failure.index, failure.start,
                              1 + count_lines(p, 0, failure.start))
        if marked.count:
            set_byte_marks(result, owner, p, size, &marked, epin)
    finally:
        records_free(marked.index)
    return result


cdef void mark_columns(byte_marks* marked, Py_ssize_t count) except *:
    """Room in marked for every token to be marked, in one block of _memory.h's (memory
    never written costs nothing; a block given back is taken again by the next call,
    already faulted in: arrays('q') written in place faulted in fresh memory at each
    call, 6x the clean buffer's time at half the tokens marked, against 4x)."""
    marked.room = count
    # 8 entries past each column: the AVX-512 loop writes its marks eight a store
    marked.index = <int64_t*>records_alloc(16 * (count + 8))
    if marked.index == NULL:
        raise MemoryError()
    marked.start = marked.index + count + 8


cdef inline Py_ssize_t marked_length(const unsigned char* p, Py_ssize_t size,
                                     Py_ssize_t s) noexcept nogil:
    """How many bytes of p from s to the next separator (or size): a marked token's,
    eight bytes a test where eight are there."""
    cdef uint64_t seps
    cdef Py_ssize_t n = 0
    while s + n + 8 <= size:
        seps = sep_bits_swar(load64_le(p + s + n))
        if seps:
            return n + (ctz64(seps) >> 3)
        n += 8
    while s + n < size and not is_sep(p[s + n]):
        n += 1
    return n


cdef struct ReasonSlot:  # a refused token of up to 8 bytes and its reason
    uint64_t key
    Py_ssize_t length
    int reason


cdef void set_byte_marks(TokenArray result, object owner, const unsigned char* p,
                         Py_ssize_t size, byte_marks* marked, bint epin) except *:
    """The marks of a byte buffer on the result: their indices and byte offsets, and the
    rest of each (its text, reason and line) as _marks.MarkedTexts reads it.  A bytes
    input cannot change: the marks keep it and read the rest from it when first asked
    for (copying the texts, their ends and lines was over half of a marked token's
    cost).  Any other buffer is copied once, and the rest read from the copy now."""
    cdef Py_ssize_t n = marked.count
    cdef object positions = int64_column(marked.start, n)
    if type(owner) is bytes:
        rejected = _marks.MarkedTexts.read_later(n, _read_byte_marks, owner, positions, epin,
                                                 positions=positions)
    else:  # a mutable buffer: what is kept must not change with it
        data = PyBytes_FromStringAndSize(<const char*>p, size)
        texts, ends, reasons, lines = _read_byte_marks(data, positions, epin)
        rejected = _marks.MarkedTexts(texts, ends, reasons, positions, None, None, lines)
    result._rejected = rejected
    result._invalid = int64_column(marked.index, n)


def _read_byte_marks(bytes data, object positions, bint epin):
    """(texts, ends, reasons, lines) of the tokens of data that parse_many marked,
    which start at positions (array('q'), increasing): each token's bytes back to back
    and where each ends, its reason (one byte each) and its line.  A token read before
    gives its reason from a small table by its bytes (a column's typos repeat),
    scan_token the others; one that is a token after all raises RuntimeError (the
    buffer changed while it was read)."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = len(data), n = len(positions), j, s, total = 0, length
    cdef Py_ssize_t counted = 0
    cdef const int64_t* start = <const int64_t*>array_address(positions) if n else NULL
    cdef int64_t newlines = 0
    cdef int code
    cdef bint changed = False
    cdef uint64_t key
    cdef ReasonSlot seen[256]
    cdef ReasonSlot* slot
    memset(seen, 0, sizeof(seen))
    # the texts back to back, at most the buffer's bytes (and 8 for an 8-byte store)
    cdef unsigned char* text = <unsigned char*>records_alloc(size + 8)
    cdef int64_t* ends = <int64_t*>records_alloc(16 * n + 8)
    cdef int64_t* line = ends + n
    cdef bytes reasons = PyBytes_FromStringAndSize(NULL, n)
    cdef unsigned char* reason = <unsigned char*>PyBytes_AS_STRING(reasons)  # ours alone
    try:
        if text == NULL or ends == NULL:
            raise MemoryError()
        with nogil:
            for j in range(n):
                s = start[j]
                if s < counted or s >= size:  # not where a marked token can start
                    changed = True
                    break
                newlines += count_newlines(p + counted, s - counted)
                counted = s
                line[j] = 1 + newlines
                length = marked_length(p, size, s)
                if total + length > size:  # more text than the buffer holds
                    changed = True
                    break
                if length <= 8 and s + 8 <= size:
                    key = load64(p + s)
                    memcpy(text + total, &key, 8)  # one store: the bytes past are overwritten
                    key &= ((1ULL << (8 * length)) - 1) if length < 8 else ~0ULL
                    slot = &seen[((key * 0x9E3779B97F4A7C15ULL) >> 56) ^ <uint64_t>length]
                    if slot.length != length or slot.key != key:
                        slot.key, slot.length = key, length
                        slot.reason = scan_token(p + s, length, epin)
                    code = slot.reason
                else:
                    memcpy(text + total, p + s, length)
                    code = scan_token(p + s, length, epin)
                if code >= 0:  # a token now: another thread wrote into the buffer
                    changed = True
                    break
                reason[j] = <unsigned char>-code
                total += length
                ends[j] = total
        if changed:
            raise RuntimeError("the buffer changed while parse_many read it")
        return (PyBytes_FromStringAndSize(<const char*>text, total), int64_column(ends, n),
                reasons, int64_column(line, n))
    finally:
        records_free(text)
        records_free(ends)


cdef inline Py_ssize_t count_lines(const unsigned char* p, Py_ssize_t start,
                                   Py_ssize_t stop) noexcept nogil:
    """How many newlines p[start:stop] holds (_split.h)."""
    return <Py_ssize_t>count_newlines(p + start, stop - start)


def line_faults(data):
    """One token a line of ``data`` (bytes; a line ends at b"\\n", and one final b"\\r"
    of a line, before its b"\\n" or at the end, is no part of it), for reading the lines
    with parse_many's whitespace split: ``(lines, faults, clean)``.  ``lines`` is how
    many lines ``data`` holds (the bytes after the last b"\\n" are one more);
    ``faults`` is ``(index, start, end)`` for each line the split would not read as one
    token, in order: one empty (or b"\\r" alone), or holding whitespace (bytes.split()'s)
    besides its final b"\\r"; ``index`` counts lines from 0 and ``data[start:end]`` is
    the line, its final b"\\r" kept.  ``clean`` is ``data`` with those lines' bytes
    turned to spaces (``data`` itself when there is none): parse_many reads one token
    from each other line, its error ``line`` the line's, and none from these."""
    if type(data) is not bytes:
        raise TypeError(f"line_faults takes bytes, not {type(data).__name__}")
    cdef const unsigned char* p = <bytes>data
    cdef Py_ssize_t n = len(<bytes>data), at = 0, i, start, end
    cdef int64_t newlines = 0
    cdef int portable = bytes_kernel_id == SASHITE_KERNEL_PORTABLE
    cdef const void* found
    cdef list faults = []
    cdef bytes clean
    cdef char* q
    while at < n:
        i = <Py_ssize_t>next_line_fault(p, n, at, portable, &newlines)
        if i >= n:
            break
        start = i  # the line's start: right after the last newline before the fault
        while start > at and p[start - 1] != 10:
            start -= 1
        found = memchr(p + i, 10, n - i)
        end = n if found == NULL else <const unsigned char*>found - p
        faults.append((newlines, start, end))
        newlines += found != NULL
        at = end + 1
    lines = newlines + (n > 0 and p[n - 1] != 10)
    if not faults:
        return lines, faults, data
    clean = PyBytes_FromStringAndSize(NULL, n)  # new: no one else sees it
    q = PyBytes_AS_STRING(clean)
    memcpy(q, p, n)
    for _, start, end in faults:
        memset(q + start, 32, end - start)
    return lines, faults, clean


cdef inline Py_UCS4 code_point_at(const unsigned char* e, Py_ssize_t i) noexcept nogil:
    # memcpy: a U element need not be 4-byte aligned (a view at an odd offset).
    cdef Py_UCS4 cp
    memcpy(&cp, e + 4 * i, 4)
    return cp


cdef int scan_element(const unsigned char* e, Py_ssize_t width, bint wide, bint epin,
                      Py_ssize_t* length) noexcept nogil:
    """Scan one numpy S (bytes) or U (UCS4 code points) element, NUL padding removed."""
    cdef unsigned char buf[4]
    cdef Py_ssize_t n = width, i
    cdef Py_UCS4 cp
    if not wide:
        while n and e[n - 1] == 0:
            n -= 1
        length[0] = n
        return scan_token(e, n, epin)
    while n and code_point_at(e, n - 1) == 0:
        n -= 1
    length[0] = n
    if n > 4:
        return scan_token(NULL, n, epin)  # too long: not read (buf is not filled)
    for i in range(n):
        cp = code_point_at(e, i)
        buf[i] = <unsigned char>cp if cp < 0x80 else 0x80
    return scan_token(buf, n, epin)


cdef object element_token(const unsigned char* e, Py_ssize_t n):
    """What an error names for an invalid U element: its text, or its raw bytes when a
    unit is no code point (numpy does not check what a buffer it is given holds)."""
    cdef Py_UCS4 units4[8]
    cdef Py_ssize_t i
    if n <= 8:  # most: made in C (a marked entry of a dirty column costs its object only)
        for i in range(n):
            units4[i] = code_point_at(e, i)
            if units4[i] >= 0x110000:
                return <bytes>e[:4 * n]
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, units4, n)
    units = [<unsigned int>code_point_at(e, i) for i in range(n)]
    if all(unit < 0x110000 for unit in units):
        return "".join(map(chr, units))
    return <bytes>e[:4 * n]


cdef struct FixedMarks:  # a numpy S / U array's marked elements, as compact columns
    int64_t* index          # each one's element (its text found again from it)
    unsigned char* reason   # and reason
    uint32_t* key           # elements of up to 4 units: each one's units (element_key)
    Py_ssize_t count
    Py_ssize_t clipped      # how many keys of U elements have a unit past ASCII


cdef inline uint32_t element_key(const unsigned char* e, Py_ssize_t width,
                                 bint wide) noexcept nogil:
    """An element of up to 4 units as one integer, unit i in byte i: an S element's
    bytes exactly, a U element's code points with any past ASCII as 0x80 (as
    scan_element reads them).  Its trailing zero bytes are its NUL padding."""
    cdef uint32_t key = 0
    cdef Py_ssize_t i
    for i in range(width):
        key |= <uint32_t>(min(code_point_at(e, i), 0x80) if wide else e[i]) << (8 * i)
    return key


cdef int scan_fixed(const unsigned char* base, Py_ssize_t count, Py_ssize_t stride,
                    Py_ssize_t width, bint wide, bint epin, bint mark, unsigned char* out,
                    Py_ssize_t first, FixedMarks* marked, Failure* failure,
                    Py_ssize_t start, Py_ssize_t stop, Py_ssize_t* refused=NULL,
                    uint32_t* words=NULL) noexcept nogil:
    """Elements start to stop - 1 of base[0], base[stride], ..., base[(count - 1) *
    stride], a numpy S or U array (width characters each), into the records at out; an
    error names index first + k and the element's byte offset from base.  0 done, 1 an
    error under errors="raise" (in failure).  Under errors="mark", marked has room for
    every element."""
    cdef Py_ssize_t k = start, upto, length = 0
    cdef const unsigned char* e
    cdef int code
    # The SIMD kernels read contiguous arrays of 1-4 characters eight elements at a
    # time (_fixed.h), each lane 4 characters from its element's start: only elements
    # at least that far from the array's end.
    cdef int kernel = bytes_kernel_id
    cdef bint simd = (kernel_lanes(kernel) and 1 <= width <= 4
                      and stride == (4 * width if wide else width))
    cdef Py_ssize_t lanes = count - (4 + width - 1) // width + 1 if simd else 0
    cdef Py_ssize_t m, q, i
    # A refused element's code by its units (up to 4, each a byte: a code point past
    # ASCII as 0x80, as scan_element reads it), for the elements the lanes refuse: a
    # column's typos repeat, and scan_element cost as much as the lanes' whole read
    cdef uint32_t key
    cdef uint32_t seen_key[256]
    cdef int seen_code[256]
    cdef unsigned char seen_set[256]
    if refused != NULL:
        memset(seen_set, 0, sizeof(seen_set))
    lanes = min(lanes, stop)
    while k < stop:
        upto = stop
        if k < lanes and refused != NULL:
            # errors="mark": the lanes read past the elements that are no token (the
            # zero record, the position kept); the exact code reads only those
            m = 0
            k = fixed_lanes_marking(kernel, wide, base, k, lanes, width, out,
                                    records_by_index, epin, refused, words, &m)
            for q in range(m):
                key = words[q]  # the element's units, as element_key gives them
                i = (key * 0x9E3779B1u) >> 24
                if seen_set[i] and seen_key[i] == key:
                    code = seen_code[i]
                else:
                    e = base + refused[q] * stride  # 4 units readable: a lane read them
                    code = scan_element(e, width, wide, epin, &length)
                    seen_set[i], seen_key[i], seen_code[i] = 1, key, code
                if code >= 0:
                    memcpy(out + 5 * refused[q], record_of[code], 5)  # the next is written
                else:
                    marked.index[marked.count] = first + refused[q]
                    marked.reason[marked.count] = <unsigned char>-code
                    if marked.key != NULL:
                        marked.key[marked.count] = key
                        if wide and key & 0x80808080u:
                            marked.clipped += 1
                    marked.count += 1
            upto = min(k + 8, stop)
        elif k < lanes:
            k = fixed_lanes(kernel, wide, base, k, lanes, width, out, records_by_index, epin)
            upto = min(k + 8, stop)
        while k < upto:
            e = base + k * stride
            code = scan_element(e, width, wide, epin, &length)
            if code >= 0:
                memcpy(out + 5 * k, record_of[code], 8)
            elif not mark:
                failure.index, failure.start, failure.length = first + k, k * stride, length
                failure.reason = -code
                return 1
            else:
                memset(out + 5 * k, 0, 5)
                marked.index[marked.count] = first + k
                marked.reason[marked.count] = <unsigned char>-code
                if marked.key != NULL:
                    key = element_key(e, width, wide)
                    marked.key[marked.count] = key
                    if wide and key & 0x80808080u:
                        marked.clipped += 1
                marked.count += 1
                k += 1
                break  # the lanes take the rest back from the next element
            k += 1
    return 0


cdef TokenArray parse_fixed_width(Py_buffer* view, bint wide, bytes fmt, bint epin, bint mark):
    cdef Py_ssize_t count, stride, width, start = 0, stop
    cdef const unsigned char* base = <const unsigned char*>view.buf
    cdef const unsigned char* e
    cdef TokenArray result
    cdef FixedMarks marked = FixedMarks(NULL, NULL, NULL, 0, 0)
    cdef Failure failure
    cdef int status
    cdef Py_ssize_t* refused = NULL  # errors="mark": the lanes' refused positions
    cdef uint32_t* words = NULL      # ... and their units (element_key)
    cdef Py_ssize_t room
    if view.ndim != 1:
        raise ValueError(f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional")
    if wide and fmt[:1] in (b">", b"!"):
        raise ValueError("parse_many reads U arrays in native byte order (use .astype('U'))")
    count, stride = view.shape[0], view.strides[0]
    width = view.itemsize // 4 if wide else view.itemsize
    result = new_token_array(count, epin)
    failure.index = failure.start = failure.length = failure.reason = 0
    if mark:
        # Room for every element to be marked, 9 bytes each (memory never written costs
        # nothing): a 40-byte mark grown by doubling faulted in fresh memory as it grew,
        # half the elements marked 5.5x the clean array's time
        marked.index = <int64_t*>records_alloc(13 * count + 64)
        if marked.index == NULL:
            raise MemoryError()
        marked.reason = <unsigned char*>(marked.index + count) + 4 * count
        if width <= 4:  # the texts kept as 4-byte keys, made into texts when asked
            marked.key = <uint32_t*>(marked.index + count)
    if mark and kernel_lanes(bytes_kernel_id):
        # 8 entries past the piece's: the AVX-512 lanes write eight a store
        room = min(count, max(1, piece_size // max(1, abs(stride)))) + 8
        refused = <Py_ssize_t*>records_alloc((sizeof(Py_ssize_t) + 4) * room)
        if refused == NULL:
            raise MemoryError()
        words = <uint32_t*>(refused + room)
    try:
        # A piece at a time, pending signals checked between (Ctrl-C stops a long call).
        while True:
            stop = min(count, start + max(1, piece_size // max(1, abs(stride))))
            with nogil:
                status = scan_fixed(base, count, stride, width, wide, epin, mark,
                                    result.records, 0, &marked, &failure, start, stop,
                                    refused, words)
            if status != 0 or stop >= count:
                break
            start = stop
            PyErr_CheckSignals()
        if status > 0:
            e = base + failure.start
            if wide:
                token = element_token(e, failure.length)
            else:
                token = <bytes>e[:failure.length]
            raise _ParseError(token, _reason_text(failure.reason, notation_of(epin)),
                              notation_of(epin), failure.index)
        if marked.count and marked.key != NULL:
            result._rejected = keyed_elements(base, stride, width, wide, &marked)
            result._invalid = int64_column(marked.index, marked.count)
        elif marked.count:
            result._rejected = rejected_elements(base, stride, width, wide, &marked)
            result._invalid = int64_column(marked.index, marked.count)
    finally:
        records_free(refused)
        records_free(marked.index)
    return result


cdef object rejected_elements(const unsigned char* base, Py_ssize_t stride,
                              Py_ssize_t width, bint wide, FixedMarks* marked):
    """The marked elements of a numpy S or U array (each at base + its index * stride:
    parse_fixed_width reads from element 0) as columns (_marks.MarkedTexts: their bytes,
    or UCS-4 units, NUL padding removed, copied once, back to back; tokens made when
    errors() reads them, as element_token makes them)."""
    cdef Py_ssize_t j, b, n = marked.count, total = 0, size, unit = 4 if wide else 1
    cdef const unsigned char* e
    # the texts at most width units each, gathered in a block of ours (one kept by
    # _memory.h, already faulted in), copied once into their bytes
    cdef unsigned char* text = <unsigned char*>records_alloc(n * width * unit + 8)
    cdef int64_t* ends = <int64_t*>records_alloc(8 * n + 8)
    try:
        if text == NULL or ends == NULL:
            raise MemoryError()
        with nogil:
            for j in range(n):
                e = base + marked.index[j] * stride
                size = width
                if wide:
                    while size and code_point_at(e, size - 1) == 0:
                        size -= 1
                else:
                    while size and e[size - 1] == 0:
                        size -= 1
                size *= unit
                if size <= 16:  # a token's size: no call to memcpy for a few bytes
                    for b in range(size):
                        text[total + b] = e[b]
                else:
                    memcpy(text + total, e, size)
                total += size
                ends[j] = total
        return _marks.MarkedTexts(PyBytes_FromStringAndSize(<const char*>text, total),
                                  int64_column(ends, n),
                                  PyBytes_FromStringAndSize(<const char*>marked.reason, n),
                                  None, "ucs4" if wide else None)
    finally:
        records_free(text)
        records_free(ends)


cdef object keyed_elements(const unsigned char* base, Py_ssize_t stride,
                           Py_ssize_t width, bint wide, FixedMarks* marked):
    """The marked elements of a numpy S or U array of up to 4 units each as
    _marks.MarkedTexts, their texts made from their keys when first asked for (the
    array may change after the call: the keys are a copy).  A U element's key holds
    its code points only where each is ASCII: the others' texts are copied now."""
    cdef Py_ssize_t j, n = marked.count, size
    cdef const unsigned char* e
    cdef dict clipped = {}  # mark -> its element's units, where its key clips one
    if wide and marked.clipped:
        for j in range(n):
            if marked.key[j] & 0x80808080u:
                e = base + marked.index[j] * stride
                size = width
                while size and code_point_at(e, size - 1) == 0:
                    size -= 1
                clipped[j] = <bytes>e[:4 * size]
    reasons = PyBytes_FromStringAndSize(<const char*>marked.reason, n)
    keys = PyBytes_FromStringAndSize(<const char*>marked.key, 4 * n)
    return _marks.MarkedTexts.read_later(n, _read_keyed_marks, keys, wide, clipped, reasons,
                                         decode="ucs4" if wide else None)


def _read_keyed_marks(bytes keys, bint wide, dict clipped, bytes reasons):
    """(texts, ends, reasons, None) of marked numpy elements kept as keys
    (keyed_elements): each key's units up to its last nonzero one, a U element's as
    4-byte code units (the machine's order), ``clipped``'s texts where given."""
    cdef Py_ssize_t n = len(keys) // 4, j, i, size, total = 0
    cdef const uint32_t* key = <const uint32_t*>PyBytes_AS_STRING(keys)
    cdef uint32_t k, unit
    cdef unsigned char* text = <unsigned char*>records_alloc(16 * n + 16)
    cdef int64_t* ends = <int64_t*>records_alloc(8 * n + 8)
    cdef bytes given
    try:
        if text == NULL or ends == NULL:
            raise MemoryError()
        for j in range(n):
            k = key[j]
            if wide and k & 0x80808080u:
                given = clipped[j]
                memcpy(text + total, PyBytes_AS_STRING(given), len(given))
                total += len(given)
            else:
                size = 0
                while size < 4 and k >> (8 * size):  # (a shift by 32 is no shift)
                    size += 1
                for i in range(size):
                    unit = (k >> (8 * i)) & 0xFF
                    if wide:
                        memcpy(text + total, &unit, 4)
                        total += 4
                    else:
                        text[total] = <unsigned char>unit
                        total += 1
            ends[j] = total
        return (PyBytes_FromStringAndSize(<const char*>text, total), int64_column(ends, n),
                reasons, None)
    finally:
        records_free(text)
        records_free(ends)


# ---------------------------------------------------------------------------------
# numpy StringDType arrays, read in place
#
# Each element is a 16-byte packed string (numpy's NEP 55 layout): a string of up to
# 15 bytes lies inline, its size in the low nibble of the last byte and the flags
# 0x60 in the high one; longer strings live in an arena or on the heap, and a missing
# value has its own flag.  Inline ASCII strings are read in place: eight at a time by
# the SIMD kernels (_fixed.h) while they are tokens, else one by one, their bytes
# scanned as a compact-ASCII str's are.  Every other element (a longer string, a
# missing value, non-ASCII text, the empty string) is taken from numpy as its Python
# object and read as a list item.  The layout is checked on a probe array first: a
# numpy that lays it out otherwise is read through object arrays.

DEF SHORT_STRING = 0x60
# What else the layout check finds numpy writes in place (string_dtype_layout): the
# empty string as 16 zero bytes, and the dtype's missing value (when it has one that is
# a missing value: None, NaN, pandas.NA) as 15 zero bytes and the flag 0x80.
DEF LAYOUT_INLINE = 1
DEF LAYOUT_EMPTY = 2
DEF LAYOUT_MISSING = 4
DEF MISSING_STRING = 0x80


cdef int string_dtype_layout(object dtype) except -1:
    """Which of the layouts above dtype's arrays have (0: read them through object
    arrays)."""
    numpy = _sys.modules["numpy"]
    na = getattr(dtype, "na_object", _NO_NA)
    missing = na is not _NO_NA and _inputs.is_missing(na)
    probe = numpy.array(["K", "+k^'", "K" * 16, "", *([na] if missing else [])], dtype=dtype)
    if probe.strides[0] != 16:
        return 0
    cdef const unsigned char* p = <const unsigned char*><size_t>probe.__array_interface__["data"][0]
    cdef bytes raw = <bytes>p[:16 * len(probe)]
    cdef int layout = 0
    if (raw[:16] == b"K" + bytes(14) + bytes([SHORT_STRING | 1])
            and raw[16:32] == b"+k^'" + bytes(11) + bytes([SHORT_STRING | 4])
            and raw[47] & 0xF0 != SHORT_STRING):
        layout = LAYOUT_INLINE
        if raw[48:64] == bytes(16):
            layout |= LAYOUT_EMPTY
        if missing and raw[64:80] == bytes(15) + bytes([MISSING_STRING]):
            layout |= LAYOUT_MISSING
    return layout


cdef object _NO_NA = object()


# The high bits of an inline string's first n bytes, as the two 8-byte halves of its
# element (the machine's order), and the first n bytes of a 4-byte word: the tests of
# a size that varies are masks, not loops (a loop's exit, mispredicted at each typo of
# another size, was most of the exact code's time on a column half invalid)
cdef uint64_t ascii_low[16]
cdef uint64_t ascii_high[16]
cdef uint32_t first_bytes[4]


cdef void fill_size_masks() noexcept:
    """ascii_low / ascii_high / first_bytes above, and missing_high below."""
    cdef unsigned char pattern[16]
    cdef int n, i
    for n in range(16):
        for i in range(16):
            pattern[i] = 0x80 if i < n else 0
        memcpy(&ascii_low[n], pattern, 8)
        memcpy(&ascii_high[n], pattern + 8, 8)
        if n < 4:
            for i in range(4):
                pattern[i] = 0xFF if i < n else 0
            memcpy(&first_bytes[n], pattern, 4)
    for i in range(8):
        pattern[i] = MISSING_STRING if i == 7 else 0
    memcpy(&missing_high, pattern, 8)


cdef inline Py_ssize_t inline_ascii_size(const unsigned char* e, int layout) noexcept nogil:
    """The size of an element's inline ASCII string (the empty string's 0 where its
    layout is known); -1 for any other element."""
    cdef uint64_t low, high
    cdef Py_ssize_t n
    memcpy(&low, e, 8)
    memcpy(&high, e + 8, 8)
    if e[15] & 0xF0 != SHORT_STRING:
        if layout & LAYOUT_EMPTY and low == 0 and high == 0:
            return 0
        return -1
    n = e[15] & 0x0F
    if (low & ascii_low[n]) | (high & ascii_high[n]):
        return -1
    return n


# A missing element's second 8 bytes as one integer (the machine's order): the test is
# two loads and two compares (byte by byte, it was a third of the exact code's time on
# a column half missing)
cdef uint64_t missing_high
fill_size_masks()


cdef inline bint is_missing_string(const unsigned char* e, int layout) noexcept nogil:
    cdef uint64_t low, high
    memcpy(&low, e, 8)
    memcpy(&high, e + 8, 8)
    return layout & LAYOUT_MISSING and high == missing_high and low == 0


# A marked element of a StringDType array is kept as 4 bytes, its key, copied at parse
# time (the array may change after the call) and made into its text when errors()
# first asks for it (copying each marked text at parse time, then its end and missing
# flag, was a quarter of a half-invalid column's time): an inline string of up to 3
# bytes (a typo's size), its bytes and its size in the last byte; a missing one,
# MISSING_STRING there; an inline one of 4 to 15 bytes, KEY_LONG there and its 16 bytes
# next in a second column; one read as an object, KEY_TAKEN (its entry kept apart).
DEF KEY_LONG = 0xFE
DEF KEY_TAKEN = 0xFF


cdef inline void string_key(unsigned char* key, const unsigned char* e, Py_ssize_t n,
                            unsigned char* longs, Py_ssize_t* long_count) noexcept nogil:
    """The key of a marked element: inline ASCII of size n, or missing (n -1)."""
    cdef uint32_t word
    if n < 0:
        memset(key, 0, 3)
        key[3] = MISSING_STRING
    elif n <= 3:
        memcpy(&word, e, 4)  # an element has 16 bytes
        word &= first_bytes[n]
        memcpy(key, &word, 4)
        key[3] = <unsigned char>n
    else:
        memcpy(longs + 16 * long_count[0], e, 16)
        long_count[0] += 1
        memset(key, 0, 3)
        key[3] = KEY_LONG


cdef int scan_strings(const unsigned char* base, Py_ssize_t stride, Py_ssize_t count,
                      bint epin, bint mark, int layout, unsigned char* out, Py_ssize_t* at,
                      FixedMarks* marked, unsigned char* keys, unsigned char* longs,
                      Py_ssize_t* long_count, Py_ssize_t* refused,
                      Failure* failure) noexcept nogil:
    """Elements at[0].. of a StringDType array into out while they are inline ASCII
    strings (or, under mark, missing ones); at[0] ends at the first that is not (status
    2: its object is needed) or at count (0).  1 an error under errors="raise".  Under
    mark the lanes read past elements that are no token (refused: room for a piece of
    positions), the exact code reads only those after; a marked element's index and
    reason go to marked, its key to keys (string_key; room for every element in each,
    and in longs)."""
    cdef Py_ssize_t k = at[0], upto, n, m, q, j
    # the marks' columns and count in registers: stored through their pointers, the
    # count was read and written back at each mark (the stores might alias marked)
    cdef int64_t* index = marked.index
    cdef unsigned char* reason = marked.reason
    cdef Py_ssize_t c = marked.count
    cdef const unsigned char* e
    cdef int code
    cdef int kernel = bytes_kernel_id
    cdef bint simd = kernel_lanes(kernel) and stride == 16
    cdef uint64_t low, high
    cdef uint64_t seen_low[256]
    cdef uint64_t seen_high[256]
    cdef int seen_code[256]
    cdef unsigned char seen_set[256]
    memset(seen_set, 0, sizeof(seen_set))
    while k < count:
        upto = count
        if simd and refused != NULL:
            # 4,096 elements at a time (64 KiB): the marked ones are still in the cache
            # when the exact code reads them
            m = 0
            k = strings_lanes_marking(kernel, base, k, min(count, k + 4096), out,
                                      records_by_index, epin, refused, &m)
            for q in range(m):
                e = base + 16 * refused[q]  # (stride 16)
                if is_missing_string(e, layout):
                    n, code = -1, -R_MISSING
                else:
                    n = inline_ascii_size(e, layout)
                    if n < 0:  # its object is needed: the lanes' later marks are read again
                        at[0] = refused[q]
                        marked.count = c
                        return 2
                    # a typo: typos repeat, their reasons kept by their 16 bytes
                    memcpy(&low, e, 8)
                    memcpy(&high, e + 8, 8)
                    j = <Py_ssize_t>(((low ^ high * <uint64_t>0xC2B2AE3D27D4EB4F)
                                      * <uint64_t>0x9E3779B97F4A7C15) >> 56)
                    if seen_set[j] and seen_low[j] == low and seen_high[j] == high:
                        code = seen_code[j]
                    else:
                        code = scan_token(e, n, epin)
                        seen_set[j], seen_low[j], seen_high[j], seen_code[j] = 1, low, high, code
                if code >= 0:
                    memcpy(out + 5 * refused[q], record_of[code], 5)  # the next is written
                else:
                    index[c] = refused[q]
                    reason[c] = <unsigned char>-code
                    string_key(keys + 4 * c, e, n, longs, long_count)
                    c += 1
            upto = min(k + 8, count)
        elif simd:
            k = strings_lanes(kernel, base, k, count, out, records_by_index, epin)
            upto = min(k + 8, count)
        while k < upto:
            e = base + k * stride
            n = inline_ascii_size(e, layout)
            if n >= 0:
                code = scan_token(e, n, epin)
            elif mark and is_missing_string(e, layout):
                code = -R_MISSING
            else:
                at[0] = k
                marked.count = c
                return 2
            if code >= 0:
                memcpy(out + 5 * k, record_of[code], 8)
            elif not mark:
                failure.index, failure.length, failure.reason = k, n, -code
                at[0] = k
                return 1
            else:
                memset(out + 5 * k, 0, 5)
                index[c] = k
                reason[c] = <unsigned char>-code
                string_key(keys + 4 * c, e, n, longs, long_count)
                c += 1
                k += 1
                break  # the lanes take the rest back from the next element
            k += 1
    at[0] = k
    marked.count = c
    return 0


cdef TokenArray parse_string_dtype(object array, bint epin, bint mark):
    cdef Py_ssize_t count, stride, k = 0, stop, i, long_count = 0
    cdef const unsigned char* base
    cdef TokenArray result, single
    cdef FixedMarks marked = FixedMarks(NULL, NULL, NULL, 0, 0)
    cdef Py_ssize_t* refused = NULL  # errors="mark": the lanes' refused positions
    cdef unsigned char* keys = NULL  # and the marked elements' keys (string_key)
    cdef unsigned char* longs = NULL
    cdef void* block = NULL
    cdef object invalid = None  # the result's array('q') of marked indices, written in place
    cdef Failure failure
    cdef int status = 0, layout
    cdef PyObject* item
    cdef dict taken = {}  # mark -> the rejected entry of an element read as an object
    if array.ndim != 1:
        raise ValueError(f"parse_many needs a 1-dimensional array, not {array.ndim}-dimensional")
    count = len(array)
    layout = string_dtype_layout(array.dtype) if count else 0
    if not layout & LAYOUT_INLINE:
        return concatenate([
            parse_objects_at(array[i:i + STRING_DTYPE_CHUNK].astype(object), i, epin, mark)
            for i in range(0, count, STRING_DTYPE_CHUNK)], epin)
    base = <const unsigned char*><size_t>array.__array_interface__["data"][0]
    stride = array.strides[0]
    result = new_token_array(count, epin)
    failure.index = failure.start = failure.length = failure.reason = 0
    try:
        if mark:  # room for every element to be marked, 29 bytes each (see scan_fixed)
            block = records_alloc(21 * count + 64)
            if block == NULL:
                raise MemoryError()
            keys = <unsigned char*>block
            longs = keys + 4 * count
            marked.reason = longs + 16 * count
            if offsets_in_place():  # the indices into the result's array itself (the
                # copy was a tenth of a half-missing column's time; pages never written
                # cost nothing)
                invalid = new_array("q")
                marked.index = <int64_t*>pyarray_resize(invalid, count + 8, 8)
            else:
                marked.index = <int64_t*>records_alloc(8 * count + 64)
                if marked.index == NULL:
                    raise MemoryError()
            if kernel_lanes(bytes_kernel_id) and stride == 16:
                refused = <Py_ssize_t*>records_alloc(
                    sizeof(Py_ssize_t) * min(count, piece_entries()) + 64)
                if refused == NULL:
                    raise MemoryError()
        while k < count:
            # A piece at a time (the elements up to stop read as if the array ended
            # there), pending signals checked between: Ctrl-C stops a long array.
            stop = min(count, k + piece_entries())
            with nogil:
                status = scan_strings(base, stride, stop, epin, mark, layout, result.records,
                                      &k, &marked, keys, longs, &long_count, refused,
                                      &failure)
            if status == 0 and k < count:
                PyErr_CheckSignals()
            if status == 1:
                raise _ParseError(
                    (<bytes>(base + failure.index * stride)[:failure.length]).decode("ascii"),
                    _reason_text(failure.reason, notation_of(epin)), notation_of(epin),
                    failure.index)
            if status == 2:  # an element the loop cannot read: its object, as a list item
                element = array[k]
                item = <PyObject*>element
                single = parse_objects(<const char*>&item, 1, sizeof(PyObject*), k, epin, mark)
                memcpy(result.records + 5 * k, single.records, 5)
                if single._rejected:
                    taken[marked.count] = single._rejected[0]
                    marked.index[marked.count] = k
                    marked.reason[marked.count] = <unsigned char>single._rejected[0][1]
                    memset(keys + 4 * marked.count, 0, 3)
                    keys[4 * marked.count + 3] = KEY_TAKEN
                    marked.count += 1
                k += 1
        if marked.count:
            na = getattr(array.dtype, "na_object", _NO_NA)
            result._rejected = rejected_strings(
                keys, longs, long_count, &marked, taken, None if na is _NO_NA else na,
                na is not _NO_NA and _inputs.is_missing(na))
            if invalid is not None:
                if marked.count < count // 4:  # its room given back, few marked
                    pyarray_resize(invalid, marked.count, 8)
                pyarray_set_size(invalid, marked.count)
                result._invalid = invalid
            else:
                result._invalid = int64_column(marked.index, marked.count)
    finally:
        records_free(refused)
        records_free(block)
        if invalid is None:
            records_free(marked.index)
    return result


cdef object rejected_strings(const unsigned char* keys, const unsigned char* longs,
                             Py_ssize_t long_count, FixedMarks* marked, dict taken,
                             object na, bint na_missing):
    """The marked elements of a StringDType array as _marks.MarkedStrings, their keys
    copied now and made into texts when first asked for (_read_string_marks); a list
    of the rejected entries where an element read as an object holds a token that is
    neither a str nor the dtype's missing value na (where na_missing: None, NaN,
    pandas.NA; a str na_object is text like any other)."""
    cdef Py_ssize_t n = marked.count
    rejected = _marks.MarkedStrings.strings_later(
        n, na, _read_string_marks, PyBytes_FromStringAndSize(<const char*>keys, 4 * n),
        PyBytes_FromStringAndSize(<const char*>longs, 16 * long_count), taken,
        PyBytes_FromStringAndSize(<const char*>marked.reason, n), na, na_missing)
    for entry in taken.values():
        token = (<tuple>entry)[0]
        if type(token) is not str and not (na_missing and token is na):
            return [taken[j] if j in taken else entry for j, entry in enumerate(rejected)]
    return rejected


def _read_string_marks(bytes keys, bytes longs, dict taken, bytes reasons, object na,
                       bint na_missing):
    """(texts, ends, reasons, None, nones) of a StringDType array's marked elements
    from their keys (string_key): their UTF-8 bytes back to back (a str read as an
    object with "surrogatepass", as the export writes it), where each ends, and a flag
    for each that is missing (None where none is)."""
    cdef Py_ssize_t j, n = len(reasons), total = 0, size, at = 0, room = 15 * n + 64
    cdef const unsigned char* key = <const unsigned char*>PyBytes_AS_STRING(keys)
    cdef const unsigned char* k
    cdef const unsigned char* e
    cdef unsigned char tag
    cdef bytes text
    cdef void* more
    cdef unsigned char* texts = <unsigned char*>records_alloc(room)
    cdef int64_t* ends = <int64_t*>records_alloc(8 * n + 8)
    cdef bytes nones = PyBytes_FromStringAndSize(NULL, n)
    cdef unsigned char* none = <unsigned char*>PyBytes_AS_STRING(nones)  # new: ours alone
    cdef bint any_none = False
    try:
        if texts == NULL or ends == NULL:
            raise MemoryError()
        for j in range(n):
            k = key + 4 * j
            tag = k[3]
            none[j] = 0
            if tag <= 3:
                memcpy(texts + total, k, tag)
                total += tag
            elif tag == MISSING_STRING:
                none[j] = any_none = 1
            elif tag == KEY_LONG:  # the longs in the marks' order
                e = <const unsigned char*>PyBytes_AS_STRING(longs) + 16 * at
                at += 1
                size = e[15] & 0x0F
                memcpy(texts + total, e, size)
                total += size
            else:
                token = (<tuple>taken[j])[0]
                if na_missing and token is na:
                    none[j] = any_none = 1
                elif type(token) is str:  # a longer or non-ASCII string
                    text = (<str>token).encode("utf-8", "surrogatepass")
                    size = len(text)
                    # room for this text and 15 bytes for each entry after it (what a
                    # key's text may take, copied unchecked above): a check of this
                    # text alone let long strings use the keys' room, then the keys
                    # after them wrote past the block
                    if total + size + 15 * (n - j) > room:
                        room = 2 * room + size + 15 * (n - j)
                        more = records_realloc(texts, room)
                        if more == NULL:
                            raise MemoryError()
                        texts = <unsigned char*>more
                    memcpy(texts + total, <const char*>text, size)
                    total += size
                # (any other token: rejected_strings lists the entries instead)
            ends[j] = total
        return (PyBytes_FromStringAndSize(<const char*>texts, total), int64_column(ends, n),
                reasons, None, nones if any_none else None)
    finally:
        records_free(texts)
        records_free(ends)


cdef TokenArray parse_objects_at(object objects, Py_ssize_t first, bint epin, bint mark):
    """A numpy object array whose entries are entries first, first + 1, ... of the
    input: errors name those indices."""
    cdef Py_buffer view
    PyObject_GetBuffer(objects, &view, PyBUF_RECORDS_RO)
    try:
        return parse_objects(<const char*>view.buf, view.shape[0], view.strides[0], first,
                             epin, mark)
    finally:
        PyBuffer_Release(&view)
