#!/usr/bin/env bash
# Memory safety: the test suite against the compiled core with every memory access
# checked.  Two ways, from a fresh venv under build/memcheck-MODE:
#
#   bash reliability/memcheck.sh asan       # AddressSanitizer build of the core (gcc),
#                                           #   the whole suite on the compiled core
#   bash reliability/memcheck.sh valgrind   # the plain build under valgrind memcheck,
#                                           #   the buffer, bulk, scan and API tests
#
# Extra arguments go to pytest.  Python's own allocator is switched off
# (PYTHONMALLOC=malloc) so every str, list and error the core touches is a separate
# checked block too.  Exit status: non-zero on any report.
#
# Left out in both: the leak checks and the 100-million-token memory bound (the
# checkers' own shadow memory and quarantine change RSS; they run in the plain suite),
# and tests of the pure-Python twin (no native code of ours).  Valgrind is ~50x slower,
# so it also leaves out the exhaustive sweeps that run millions of strings.
set -euo pipefail
mode=${1:-asan}
shift || true
cd "$(dirname "$0")/.."
work="build/memcheck-$mode"
# MEMCHECK_PHASE=build makes the venv and the build and stops; =test runs the suite in
# the ones a build phase made (CI builds while its other checks run); unset, both.
phase=${MEMCHECK_PHASE:-all}
if [ "$phase" != test ]; then
    rm -rf "$work"
    python3 -m venv "$work/venv"
fi
py="$work/venv/bin/python"
# Under ASan every process is slow: the command-line and docs examples (new Python
# processes over the same core calls the other tests make) and Dask are left out.
skip="not test_memory_stays_flat and not hundred_million and not python"
# RSS and page faults read against what the core keeps of freed results: the checkers' quarantine holds
# every freed block besides (the cap's own checks, on the plain build, in the suite).
skip="$skip and not stays_within_the_cap and not release_memory_gives_back"
skip="$skip and not takes_the_memory_the_last_one_gave_back"  # page faults, the same
skip="$skip and not test_cli and not test_docs and not test_dask"
# DuckDB links its C++ runtime statically: under the preloaded ASan runtime any C++
# exception it throws, even one it catches itself (registering a function does), aborts
# in ASan's __cxa_throw interceptor.  Its SQL functions hand the core Arrow columns, which
# the other tests here read under ASan.
skip="$skip and not test_duckdb"
# A pip build of a downstream project against a fresh wheel of ours (a packaging check,
# its C run by the plain suite), and the compiled-against-twin sweep of 5 characters
# (the twin's Python, slower still with every allocation checked; the compiled core
# meets every such string in the oracle sweeps here too): minutes under ASan, nothing
# of our C they would check that the rest does not.
skip="$skip and not test_downstream_build"
deselect=(--deselect "tests/test_conformance.py::test_compiled_core_and_twin_give_the_same_code_or_reason[5]")
export SASHITE_EPIN_IMPLEMENTATION=cython PYTHONMALLOC=malloc

case "$mode" in
asan)
    # The flags reach setuptools inside pip's isolated build; --no-cache-dir so the
    # wheel is built here with them, not taken from a plain build in pip's cache.
    if [ "$phase" != test ]; then
        CFLAGS="-fsanitize=address -fno-omit-frame-pointer -O1 -g" LDFLAGS="-fsanitize=address" \
            SASHITE_EPIN_REQUIRE_EXTENSION=1 "$work/venv/bin/pip" install -q --no-cache-dir '.[test]'
    fi
    so=$(LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 \
        "$py" -c 'import sashite_epin._core_c as c; print(c.__file__)')
    [ "$(nm -D "$so" | grep -c __asan_report)" -gt 0 ] || { echo "$so is not an ASan build" >&2; exit 1; }
    echo "ASan build: $so"
    [ "$phase" = build ] && exit 0
    # detect_leaks=0: CPython keeps its objects alive at exit by design (the leak checks
    # are tests of their own).  Any invalid access aborts the run with a report.
    # allocator_may_return_null=1: a request past memory is a NULL from malloc, as without
    # ASan (which aborts instead), so the core's own MemoryError paths are what runs.
    LD_PRELOAD="$(gcc -print-file-name=libasan.so)" \
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:allocator_may_return_null=1 \
        "$py" -m pytest -q -p no:cacheprovider -n auto tests -k "$skip" "${deselect[@]}" "$@"
    ;;
valgrind)
    if [ "$phase" != test ]; then
        SASHITE_EPIN_REQUIRE_EXTENSION=1 "$work/venv/bin/pip" install -q --no-cache-dir '.[test]'
    fi
    [ "$phase" = build ] && exit 0
    # Leaks are not memcheck's job here (see above).  CPython 3.11 and glibc's AVX2
    # string functions give memcheck a few reports of their own (int.from_bytes at
    # start-up, wmemcmp reading whole vectors): an error counts when a frame of its
    # stack is in our extension (or in the downstream probe built against our .pxd).
    valgrind --tool=memcheck --leak-check=no --track-origins=yes --num-callers=40 \
        --log-file="$work/valgrind.log" \
        "$py" -m pytest -q -p no:cacheprovider \
        tests/test_hostile.py tests/test_bulk.py tests/test_scan.py tests/test_api.py \
        tests/test_vectors.py tests/test_capi.py tests/test_properties.py tests/test_threads.py \
        -k "$skip and not every_short_string and not every_position" "$@"
    "$py" - "$work/valgrind.log" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
reports = re.split(r"\n==\d+== \n", log)
errors = [r for r in reports if re.search(r"==\d+== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and)", r)]
ours = [r for r in errors if re.search(r"_core_c\.|engine_probe|sashite", r)]
total = re.findall(r"ERROR SUMMARY: (\d+) errors", log)
print(f"valgrind: {total[0] if total else '?'} errors in all, {len(ours)} with a frame in sashite_epin")
for r in ours[:5]:
    print(r)
sys.exit(1 if ours or not total else 0)
PY
    ;;
*)
    echo "usage: $0 asan|valgrind [pytest args]" >&2
    exit 2
    ;;
esac
