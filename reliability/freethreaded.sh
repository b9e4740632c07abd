#!/usr/bin/env bash
# Free-threaded CPython: the suite's thread and shared-state tests with the GIL off, and
# a thread storm.
#
#   bash reliability/freethreaded.sh            # build/freethreaded: interpreter + venv
#
# Builds CPython 3.13 with --disable-gil from Debian's own source package (sid's sources:
# Debian's package registry is the one place a CPython source is fetched from here), in
# about 5 minutes on 2 cores, then installs the project into a venv of it and runs, with
# PYTHON_GIL=0 and warnings as errors:
#   - the import under -W error (a module that does not declare free-threading support
#     turns the GIL back on with a RuntimeWarning);
#   - on the compiled core, every test file that reaches what the GIL being off changes
#     (FREE_THREADED_TESTS below), and on the twin its shared state (tests needing a
#     library with no free-threaded wheel skip themselves);
#   - tests/test_threads.py again, its storm made longer.
# FREETHREADED_PHASE=build makes the interpreter and the venv and stops (CI builds it
# while its other checks run); =test runs in the ones a build phase made; unset, both.
# Extra arguments go to pytest.  Nothing is cached between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$PWD/build/freethreaded"
phase=${FREETHREADED_PHASE:-all}
py="$work/python/bin/python3.13t"
vpy="$work/venv/bin/python"
if [ "$phase" != test ]; then
rm -rf "$work" && mkdir -p "$work/apt/lists/partial"

echo "== [${SECONDS}s] CPython 3.13 source from Debian (sid)"
bash .ci/packages libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
     "http://deb.debian.org/debian sid main" >"$work/apt/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
     -o "Dir::State::Lists=$work/apt/lists")
apt-get "${apt[@]}" update -q >/dev/null
# The index may name a version the mirror no longer (or not yet) holds: newest first,
# the first that downloads.
versions=$(apt-cache "${apt[@]}" showsrc python3.13 | awk '/^Version:/ {print $2}' | sort -rV)
got=""
for version in $versions; do
  if (cd "$work" && apt-get "${apt[@]}" source -q --download-only "python3.13=$version" \
        >/dev/null 2>&1); then
    got=$version && break
  fi
done
[ -n "$got" ] || { echo "no python3.13 source package could be fetched" >&2; exit 1; }
# The upstream tarball inside it, without Debian's patches: one of them disables
# ensurepip, which venv needs.
tar -xf "$work"/python3.13_*.orig.tar.xz -C "$work"
source_dir=$(find "$work" -maxdepth 1 -type d -name 'Python-3.13*' | head -1)
echo "python3.13 $got (upstream tarball) in $source_dir"

echo "== [${SECONDS}s] configure --disable-gil, make"
(
  cd "$source_dir"
  # No test modules (CPython's own suite: a third of what the install compiles), no
  # pip in the base (each venv bootstraps its own from ensurepip), and none of the
  # standard modules nothing here imports (py_cv_module_NAME=n/a is configure's own
  # switch): decimal's libmpdec, the CJK codecs, sqlite, curses, dbm, readline, uuid,
  # the subinterpreter modules.  The install byte-compiles the standard library's top
  # level only (-l; the rest is compiled when first imported), not its every package
  # three times over.
  unused=(_decimal _sqlite3 _tkinter _curses _curses_panel _dbm _gdbm readline _uuid
          _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw
          _multibytecodec _interpreters _interpchannels _interpqueues)
  off=()
  for module in "${unused[@]}"; do off+=("py_cv_module_$module=n/a"); done
  ./configure -q --disable-gil --disable-test-modules --prefix="$work/python" "${off[@]}" \
      >/dev/null
  make -s -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -20 "$work/make.log"; exit 1; }
  make -s altinstall ENSUREPIP=no COMPILEALL_OPTS="-j0 -l" >>"$work/make.log" 2>&1 \
      || { tail -20 "$work/make.log"; exit 1; }
)
"$py" -c 'import sys; assert not sys._is_gil_enabled(), "GIL on"; print(sys.version)'

echo "== [${SECONDS}s] the project into a venv of it"
"$py" -m venv "$work/venv"
# The data libraries and hypothesis: their newest release with a wheel for this
# interpreter (a newer sdist would build for many minutes; hypothesis' needs crates.io).
export PIP_ONLY_BINARY=hypothesis,numpy,pyarrow,pandas,nanoarrow
SASHITE_EPIN_REQUIRE_EXTENSION=1 "$work/venv/bin/pip" install -q \
    '.[freethreaded]'
fi
[ "$phase" = build ] && exit 0

export PYTHON_GIL=0
echo "== [${SECONDS}s] import under -W error, the GIL stays off"
"$vpy" -W error -c '
import sys, sashite_epin
assert sashite_epin.IMPLEMENTATION == "cython", sashite_epin.IMPLEMENTATION
assert not sys._is_gil_enabled(), "importing sashite_epin turned the GIL on"
print("imported", sashite_epin.__version__, "GIL off")'
# Without PYTHON_GIL=0 too: the module's own declaration is what keeps the GIL off.
env -u PYTHON_GIL "$vpy" -W error -c '
import sys, sashite_epin
assert not sys._is_gil_enabled(), "importing sashite_epin turned the GIL on"'

echo "== [${SECONDS}s] the suite's thread and shared-state tests, GIL off: compiled core, then the twin"
# What the GIL being off changes is code that, in a GIL build, runs with the GIL held and
# may now run beside another thread: the reads of lists and other objects (under their
# own locks), references added in bulk (tokens()), interned objects and the caches of
# missing types, schemas and first imports, the memory the core keeps between results,
# results read or exported from several threads.  The files below reach each of them;
# what releases the GIL in a GIL build (the byte, numpy and Arrow scans, boards) ran
# beside other threads in the README's run already, as every other test did.  Each
# kernel met every test there, under ASan and under qemu: here the best one.
FREE_THREADED_TESTS=(
  tests/test_threads.py tests/test_concurrent_offsets.py tests/test_hostile.py
  tests/test_lying_objects.py tests/test_api.py tests/test_bulk.py tests/test_list_path.py
  tests/test_tokenize_many.py tests/test_leaks.py tests/test_pickles.py
  tests/test_marks_joined.py tests/test_frames.py tests/test_first_import.py
  tests/test_implementation.py
)
SASHITE_EPIN_TEST_KERNELS=best SASHITE_EPIN_IMPLEMENTATION=cython "$vpy" -m pytest -q \
    -p no:cacheprovider -n 2 -m "not slow" "${FREE_THREADED_TESTS[@]}" "$@"
# The twin is plain Python, the same code with the GIL on or off: what GIL-off can break
# in it is state threads share (its token tables, interned objects, cached schemas) and
# inputs another thread changes while it reads them, which the thread tests, the API
# and bulk tests and the hostile inputs changed by a thread reach; the whole twin suite
# ran in the README's test command.
SASHITE_EPIN_IMPLEMENTATION=python "$vpy" -m pytest -q -p no:cacheprovider -n 2 \
    -m "not slow" tests/test_threads.py tests/test_api.py tests/test_bulk.py \
    tests/test_implementation.py \
    tests/test_hostile.py::test_a_list_changed_by_another_thread_gives_a_whole_answer \
    tests/test_hostile.py::test_a_bytearray_changed_by_another_thread_gives_a_whole_answer_or_an_error \
    tests/test_hostile.py::test_a_numpy_array_changed_by_another_thread_gives_a_whole_answer "$@"
echo "== [${SECONDS}s] thread storm, GIL off, longer"
# The implementation left unset: the facade on the compiled core (imported above) and
# the core-level storms on both cores.
SASHITE_EPIN_STORM_SECONDS=20 "$vpy" -m pytest -q -p no:cacheprovider tests/test_threads.py "$@"
