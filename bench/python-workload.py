# SPDX-License-Identifier: GPL-3.0-or-later
"""An allocation-heavy Python program for bench/run-memory-bench.sh (-w python3).

Debian's /usr/bin/python3 runs it: a real program whose allocations come from
deep C stacks (the interpreter's evaluation loop, re-entered through C code on
every level of a recursion), where memory profilers must unwind without frame
pointers.

Each thread repeats a round of ordinary Python work:

  * builds a document tree from a small class hierarchy (Node > Branch >
    Section/Table, Node > Leaf > Text/Number) by recursion, 7 levels deep;
  * converts it to plain dicts and lists (to_dict), counts and measures it,
    each level calling the next through map() and methodcaller(), which
    are C functions: every level adds calls of the evaluation loop to the C
    stack, so allocations sit 10 to about 90 frames down (a fifth of them
    deeper than the 64 addresses that heaptrack and our tracker keep);
  * json.dumps() the dicts, json.loads() them back, and compares;
  * builds and drops an index of words (dict of lists of strings), formats
    and splits strings.

Nothing is kept from one round to the next.  The random choices come from a
generator seeded per thread, so every run does the same work.

  python-workload.py [-t THREADS] [-n ALLOCATIONS]
    -t THREADS      threads, default 1 (they take turns under the GIL)
    -n ALLOCATIONS  about how many allocations each thread makes, counted as
                    calls to malloc and friends with PYTHONMALLOC=malloc (the
                    benchmark's setting); default 10000000.  A round makes
                    about ALLOCS_PER_ROUND of them.

It prints one line on standard output when every thread has finished:
  python-workload: threads=1 rounds=N elapsed=1.234567 s cpu=1.234567 s checksum=0x...
elapsed is wall-clock time from before the first thread starts to after the
last one is joined (time.monotonic), cpu the process's time over the same
span (time.process_time), so the interpreter's start-up and a profiler's
finishing are left out.
"""

import getopt
import json
from operator import methodcaller
import random
import sys
import threading
import time

# Calls to malloc, calloc and realloc per round under PYTHONMALLOC=malloc,
# measured with bench/alloc-count.c on Debian 12's python3 3.11.2 (the
# sizing only: the benchmark counts every run's allocations itself).
ALLOCS_PER_ROUND = 70000
DEPTH = 8
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
         "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi")


# Called by map(): the C function calls each child's own method.
TO_DICT, COUNT, TEXT = methodcaller("to_dict"), methodcaller("count"), methodcaller("text")


class Node:
    """A node of the document: every kind converts, counts and measures itself."""

    kind = "node"

    def __init__(self, name):
        self.name = name

    def to_dict(self):
        return {"kind": self.kind, "name": self.name}

    def count(self):
        return 1

    def text(self):
        return self.name


class Leaf(Node):
    kind = "leaf"


class Text(Leaf):
    kind = "text"

    def __init__(self, name, words):
        super().__init__(name)
        self.words = words

    def to_dict(self):
        d = super().to_dict()
        d["words"] = list(self.words)
        d["title"] = " ".join(w.capitalize() for w in self.words)
        return d

    def text(self):
        return " ".join(self.words)


class Number(Leaf):
    kind = "number"

    def __init__(self, name, values):
        super().__init__(name)
        self.values = values

    def to_dict(self):
        d = super().to_dict()
        d["values"] = [v * 1.5 for v in self.values]
        d["label"] = "%s=%d" % (self.name, sum(self.values))
        return d

    def text(self):
        return ",".join(map(str, self.values))


class Branch(Node):
    kind = "branch"

    def __init__(self, name, children):
        super().__init__(name)
        self.children = children

    # Each level calls the next through C functions (map, methodcaller),
    # so the interpreter's evaluation loop is re-entered once per level.
    def to_dict(self):
        d = super().to_dict()
        d["children"] = list(map(TO_DICT, self.children))
        return d

    def count(self):
        return 1 + sum(map(COUNT, self.children))

    def text(self):
        return "\n".join(map(TEXT, self.children))


class Section(Branch):
    kind = "section"

    def to_dict(self):
        d = super().to_dict()
        d["toc"] = {c.name: c.kind for c in self.children}
        return d


class Table(Branch):
    kind = "table"

    def to_dict(self):
        d = super().to_dict()
        d["rows"] = sorted((c.name for c in self.children), key=str.upper)
        return d


def build(rng, depth, name):
    """A random subtree: branches down to DEPTH, leaves below it."""
    if depth == DEPTH or (depth > 2 and rng.random() < 0.25):
        if rng.random() < 0.5:
            return Text(name, [rng.choice(WORDS) for _ in range(rng.randint(2, 8))])
        return Number(name, [rng.randint(0, 999) for _ in range(rng.randint(2, 8))])
    cls = Section if rng.random() < 0.6 else Table
    n = rng.randint(2, 3)
    return cls(name, [build(rng, depth + 1, "%s.%d" % (name, i)) for i in range(n)])


def index_words(tree_text):
    """A throw-away index: word -> positions, and the words' lengths."""
    index = {}
    for pos, word in enumerate(tree_text.split()):
        index.setdefault(word, []).append(pos)
    return sum(len(k) * len(v) for k, v in index.items())


def one_round(rng):
    tree = build(rng, 0, "doc")
    d = tree.to_dict()
    s = json.dumps(d)
    back = json.loads(s)
    if back != d:
        raise SystemExit("python-workload: json round trip differs")
    return tree.count() + len(s) + index_words(tree.text())


def worker(seed, rounds, results, slot):
    rng = random.Random(seed)
    total = 0
    for _ in range(rounds):
        total = (total * 31 + one_round(rng)) & 0xFFFFFFFFFFFFFFFF
    results[slot] = total


def main(argv):
    threads, allocations = 1, 10000000
    try:
        opts, args = getopt.getopt(argv, "t:n:")
        for opt, val in opts:
            if opt == "-t":
                threads = int(val)
            else:
                allocations = int(val)
        if args or not 1 <= threads <= 64 or allocations < 1:
            raise ValueError
    except (getopt.GetoptError, ValueError):
        print("usage: python-workload.py [-t THREADS] [-n ALLOCATIONS]", file=sys.stderr)
        return 2

    rounds = max(1, (allocations + ALLOCS_PER_ROUND // 2) // ALLOCS_PER_ROUND)
    results = [0] * threads
    workers = [threading.Thread(target=worker, args=(1000 + i, rounds, results, i), name="worker-%d" % i)
               for i in range(threads)]
    t0, c0 = time.monotonic(), time.process_time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed, cpu = time.monotonic() - t0, time.process_time() - c0
    checksum = 0
    for r in results:
        checksum = (checksum * 1000003) ^ r
    print("python-workload: threads=%d rounds=%d elapsed=%.6f s cpu=%.6f s checksum=0x%016x"
          % (threads, rounds, elapsed, cpu, checksum & 0xFFFFFFFFFFFFFFFF))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
