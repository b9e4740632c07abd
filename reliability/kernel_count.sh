#!/usr/bin/env bash
# Instructions a token costs in the bytes kernel (count + decode, no Python), counted,
# not timed: the NEON and portable kernels built for aarch64 and run under qemu-aarch64
# (-singlestep: each translated block one instruction, each one logged by
# -d exec,nochain), beside the SSE2 and portable kernels built for x86-64 and counted by
# valgrind.  Each is the difference of
# two runs, the buffer read once and twice, over the tokens: one read alone.
#
#   bash reliability/kernel_count.sh [WORKDIR]     # needs qemu-user,
#                                                  # gcc-aarch64-linux-gnu, valgrind
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-build/kernel_count}"
mkdir -p "$work"
tokens=20000
# The bench's uniform corpus, made by the package itself (never a second list of tokens
# here), one space after each token.
env -u PYTHONPATH PYTHONPATH=src python3 -c \
  "from sashite_epin._corpora import uniform; print(' '.join(uniform($tokens)), end=' ')" \
  >"$work/uniform.txt"
gcc -O3 -Wall -Wextra -Werror -Isrc/sashite_epin reliability/kernel_count.c -o "$work/count-x86_64"
aarch64-linux-gnu-gcc -O3 -Wall -Wextra -Werror -Isrc/sashite_epin reliability/kernel_count.c \
  -o "$work/count-aarch64"

aarch64() {  # instructions of one run of the aarch64 build, as qemu executed them
  QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64 -singlestep -d exec,nochain \
    -D /dev/stderr "$work/count-aarch64" "$1" "$work/uniform.txt" "$2" 2>&1 >/dev/null \
    | grep -c '^Trace'
}
x86_64() {  # the same of the x86-64 build, as valgrind counted them
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/count-x86_64" "$1" \
    "$work/uniform.txt" "$2" 2>&1 | awk '/Collected/ {print $4}'
}
per_token() { python3 -c "print(f'{($2 - $1) / $tokens:.1f}')"; }
echo "instructions a token, uniform corpus, $tokens tokens (count + decode):"
for kernel in neon portable; do
  a1=$(aarch64 "$kernel" 1) && a2=$(aarch64 "$kernel" 2)
  echo "  $kernel (aarch64, qemu-aarch64 $(qemu-aarch64 --version | awk 'NR==1 {print $3}')): $(per_token "$a1" "$a2")"
done
for kernel in sse2 portable; do
  x1=$(x86_64 "$kernel" 1) && x2=$(x86_64 "$kernel" 2)
  echo "  $kernel (x86-64, valgrind): $(per_token "$x1" "$x2")"
done
