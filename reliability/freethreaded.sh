#!/usr/bin/env bash
# Free-threaded CPython: the suite with the GIL off, and a thread storm.
#
#   bash reliability/freethreaded.sh            # build/freethreaded: interpreter + venv
#
# Builds CPython 3.13 with --disable-gil from Debian's own source package (sid's sources:
# Debian's package registry is the one place a CPython source is fetched from here), in
# about 5 minutes on 2 cores, then installs the project into a venv of it and runs, with
# PYTHON_GIL=0 and warnings as errors:
#   - the import under -W error (a module that does not declare free-threading support
#     turns the GIL back on with a RuntimeWarning);
#   - the suite on the compiled core and on the twin (tests needing a library with no
#     free-threaded wheel skip themselves);
#   - tests/test_threads.py again, its storm made longer.
# Extra arguments go to pytest.  Nothing is cached between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$PWD/build/freethreaded"
rm -rf "$work" && mkdir -p "$work/apt/lists/partial"

echo "== [${SECONDS}s] CPython 3.13 source from Debian (sid)"
for need in libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev libsqlite3-dev; do
  dpkg -s "$need" >/dev/null 2>&1 || missing="${missing:-} $need"
done
if [ -n "${missing:-}" ]; then
  apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null
fi
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
  # No test modules (CPython's own suite: a third of what the install compiles) and no
  # pip in the base (each venv bootstraps its own from ensurepip).
  ./configure -q --disable-gil --disable-test-modules --prefix="$work/python" >/dev/null
  make -s -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -20 "$work/make.log"; exit 1; }
  make -s altinstall ENSUREPIP=no >>"$work/make.log" 2>&1 || { tail -20 "$work/make.log"; exit 1; }
)
py="$work/python/bin/python3.13t"
"$py" -c 'import sys; assert not sys._is_gil_enabled(), "GIL on"; print(sys.version)'

echo "== [${SECONDS}s] the project into a venv of it"
"$py" -m venv "$work/venv"
vpy="$work/venv/bin/python"
# The data libraries and hypothesis: their newest release with a wheel for this
# interpreter (a newer sdist would build for many minutes; hypothesis' needs crates.io).
export PIP_ONLY_BINARY=hypothesis,numpy,pyarrow,pandas,nanoarrow
SASHITE_EPIN_REQUIRE_EXTENSION=1 "$work/venv/bin/pip" install -q \
    '.[freethreaded]'

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

echo "== [${SECONDS}s] the suite, GIL off: compiled core, then the twin's shared state"
# Each kernel met every test in the README's run, ASan's and qemu's: here the best one.
SASHITE_EPIN_TEST_KERNELS=best SASHITE_EPIN_IMPLEMENTATION=cython "$vpy" -m pytest -q \
    -p no:cacheprovider -n 2 -m "not slow" tests "$@"
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
