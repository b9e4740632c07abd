"""Do N threads parsing N different inputs finish faster than N runs one after another?

    python reliability/threads.py                 # 2 threads (this machine has 2 cores)
    python reliability/threads.py --threads 4 --tokens 10000000

For each path: N inputs of --tokens tokens each, parsed one after another in one thread,
then all at once in N threads (best of --repeat, wall clock); the threaded results are
checked to be the sequential ones.  The buffer paths release the GIL while they scan,
so they can use every core; the list path reads Python objects and holds the GIL, so it
cannot (it is shown as the control).  Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable

import numpy as np

from sashite_epin import IMPLEMENTATION, Epin
from sashite_epin._corpora import uniform


def inputs(path: str, n: int, tokens: int) -> list[object]:
    made: list[object] = []
    for seed in range(n):
        corpus = uniform(tokens, seed + 100)
        if path == "bytes":
            made.append(" ".join(corpus).encode())
        elif path == "numpy U":
            made.append(np.array(corpus, dtype="U4"))
        else:
            made.append(corpus)
    return made


def digest(result: object) -> bytes:
    return np.asarray(result).tobytes()


def best(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return min(times), out


def measure(path: str, n: int, tokens: int, repeat: int) -> tuple[float, float]:
    data = inputs(path, n, tokens)

    def sequential() -> list[object]:
        return [Epin.parse_many(d) for d in data]

    def threaded() -> list[object]:
        results: list[object] = [None] * n
        barrier = threading.Barrier(n)

        def work(i: int) -> None:
            barrier.wait()
            results[i] = Epin.parse_many(data[i])

        threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results

    seq, expected = best(sequential, repeat)
    par, got = best(threaded, repeat)
    if list(map(digest, got)) != list(map(digest, expected)):  # type: ignore[call-overload]
        sys.exit(f"{path}: threaded results differ from sequential ones")
    return seq, par


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=20_000_000, help="per input")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if IMPLEMENTATION != "cython":
        sys.exit("the compiled core is not loaded: the twin holds the GIL throughout")
    n = args.threads
    print(f"{n} threads vs {n} sequential runs, {args.tokens:,} tokens per input, "
          f"best of {args.repeat}, {os.cpu_count()} CPUs")  # fmt: skip
    print("| path | sequential s | threaded s | speed-up |\n|---|---|---|---|")
    for path in ("bytes", "numpy U", "list (holds the GIL)"):
        seq, par = measure(path, n, args.tokens, args.repeat)
        print(f"| {path} | {seq:.3f} | {par:.3f} | {seq / par:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
