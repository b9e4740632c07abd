#!/usr/bin/env bash
# The NEON kernel, proven on aarch64 code under emulation (qemu-user), from an x86-64
# machine:
#
#   bash reliability/aarch64.sh                # build/aarch64: sysroot, wheels, the core
#   bash reliability/aarch64.sh --seconds 300  # a longer differential fuzz
#
# - an arm64 CPython 3.11 from Debian's own packages (arm64 .debs unpacked into a
#   folder: nothing is installed for arm64 on this machine) and the aarch64 wheels of
#   the test dependencies from PyPI;
# - the compiled core cross-built by Debian's gcc-aarch64-linux-gnu from the same
#   Cython output as the x86-64 build, -Wall -Wextra -Werror;
# - under qemu-aarch64: the import picks the NEON kernel, then the kernel tests, the
#   conformance battery, scan_many's, the Arrow columns', the list path's and numpy
#   strings' tests, and a differential fuzz of every kernel against the portable one
#   (reliability/kernels_fuzz.py);
# - the instructions a token costs: reliability/kernel_count.c, once built for aarch64
#   (NEON) and counted by qemu, once for x86-64 (SSE2) and counted by valgrind.
# Speed cannot be measured under emulation; instruction counts can.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
[ "${1:-}" = "--seconds" ] && seconds=$2
work="$PWD/build/aarch64"
phase=${AARCH64_PHASE:-all}
# AARCH64_PHASE=build fetches the arm64 CPython and wheels and cross-builds the core, and
# stops (CI builds while its other checks run: mostly downloads); =test runs under qemu in
# what a build phase made; unset, both.
if [ "$phase" != test ]; then
rm -rf "$work" && mkdir -p "$work/apt/lists/partial" "$work/debs" "$work/root" "$work/pkg"

echo "== [${SECONDS}s] qemu-user, gcc-aarch64-linux-gnu (Debian)"
bash .ci/packages qemu-user gcc-aarch64-linux-gnu valgrind

echo "== [${SECONDS}s] an arm64 CPython from Debian's packages, unpacked into $work/root"
# A list of sources of this machine's own release, for arm64 only, kept in $work: the
# machine's apt configuration is not touched.
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
  echo "deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian $codename main"
  echo "deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian $codename-updates main"
  echo "deb [arch=arm64 signed-by=$keyring] http://deb.debian.org/debian-security" \
       "$codename-security main"
} >"$work/apt/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
     -o "Dir::State::Lists=$work/apt/lists" -o "APT::Architecture=arm64"
     -o "APT::Architectures::=arm64" -o "Dir::State::Status=/dev/null")
apt-get "${apt[@]}" update -q >/dev/null
# The interpreter, its headers and the shared libraries its standard modules load.
(cd "$work/debs" && apt-get "${apt[@]}" download -q \
  python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev \
  libc6 libgcc-s1 libstdc++6 zlib1g libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 \
  libuuid1 libsqlite3-0 libncursesw6 libtinfo6 libreadline8 libcrypt1 libdb5.3 libgdbm6 \
  libnsl2 libtirpc3 >/dev/null 2>&1)
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
echo "== [${SECONDS}s] the test dependencies' aarch64 wheels (PyPI)"
pip_platforms=()
for tag in manylinux_2_17_aarch64 manylinux2014_aarch64 manylinux_2_28_aarch64; do
  pip_platforms+=(--platform "$tag")
done
if ! python3 -m pip install -q --disable-pip-version-check --target "$work/site" \
    "${pip_platforms[@]}" --python-version 3.11 --implementation cp --only-binary=:all: \
    "pytest>=8" "pytest-xdist>=3" "numpy>=1.26" "pyarrow>=18" "hypothesis>=6.100" \
    "pandas>=3" "nanoarrow>=0.6" >"$work/pip.log" 2>&1; then
  cat "$work/pip.log"
  exit 1
fi

echo "== [${SECONDS}s] the compiled core for aarch64 (gcc-aarch64-linux-gnu, -Wall -Wextra -Werror)"
cython -3 src/sashite_epin/_core_c.pyx -o "$work/core_c.c"
mkdir -p "$work/pkg/sashite_epin"
cp src/sashite_epin/*.py src/sashite_epin/*.pyi src/sashite_epin/py.typed "$work/pkg/sashite_epin/"
aarch64-linux-gnu-gcc -O3 -Wall -Wextra -Werror -fPIC -shared "$work/core_c.c" \
  -I"$work/root/usr/include/python3.11" -I"$work/root/usr/include" -Isrc/sashite_epin \
  -o "$work/pkg/sashite_epin/_core_c.cpython-311-aarch64-linux-gnu.so"
fi
[ "$phase" = build ] && exit 0

export QEMU_LD_PREFIX="$work/root"
py=("qemu-aarch64" "$work/root/usr/bin/python3.11")
"${py[@]}" -c 'import platform, sys; print(sys.version.split()[0], platform.machine())'

# Tests that start a Python of their own (sys.executable) need the kernel to run an
# aarch64 binary through qemu: binfmt_misc, where this machine lets us register it.
subprocess_ok=0
if [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  subprocess_ok=1
elif [ -w /proc/sys/fs/binfmt_misc/register ] \
     || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null; then
  if cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register 2>/dev/null
  then
    subprocess_ok=1
  fi
fi
if [ "$subprocess_ok" = 1 ]; then
  py=("$work/root/usr/bin/python3.11")
else
  echo "binfmt_misc is not available: tests that start a process of their own are left out"
fi

export PYTHONPATH="$work/pkg:$work/site"
"${py[@]}" - <<'PY'
import platform
import sashite_epin
from sashite_epin import _core_c
assert platform.machine() == "aarch64", platform.machine()
assert sashite_epin.IMPLEMENTATION == "cython", sashite_epin.IMPLEMENTATION
assert _core_c.KERNELS == ("neon", "portable"), _core_c.KERNELS
assert sashite_epin.BYTES_KERNEL == "neon", sashite_epin.BYTES_KERNEL
print(f"aarch64: {sashite_epin.__file__}, kernels {_core_c.KERNELS}")
PY

echo "== [${SECONDS}s] under qemu: the kernels, conformance, scan_many, Arrow columns, lists, numpy (compiled core)"
# The compiled core's tests only (the twin is the same Python code on every machine),
# and the sweeps of every short string up to 4 characters (5, against the regex or the
# twin, take minutes each under qemu, in the interpreter more than in the core's
# per-string calls, which are no kernel's; the native suite runs them).
skip="python"
if [ "$subprocess_ok" != 1 ]; then
  skip="$skip or environment_variable or cannot_run"
fi
SASHITE_EPIN_IMPLEMENTATION=cython "${py[@]}" -m pytest -q -p no:cacheprovider -n "$(nproc)" \
  -k "not ($skip)" \
  --deselect "tests/test_conformance.py::test_compiled_core_and_twin_give_the_same_code_or_reason[5]" \
  --deselect "tests/test_conformance.py::test_every_short_string_over_tricky_characters_agrees_with_the_regex[cython-5]" \
  tests/test_kernels.py tests/test_conformance.py tests/test_scan.py tests/test_columns.py \
  tests/test_list_path.py tests/test_numpy_strings.py

echo "== [${SECONDS}s] under qemu: differential fuzz, every kernel against the portable one (${seconds} s)"
"${py[@]}" reliability/kernels_fuzz.py --seconds "$seconds"

echo "== [${SECONDS}s] instructions a token: NEON (qemu) beside SSE2 (valgrind)"
bash reliability/kernel_count.sh "$work"
