"""wordgen.py - deterministic word texts for the view tests that need books
with chosen relations (near duplicates at a chosen rate of changed words,
contained parts, unrelated books).  Imported by the tests' inline python:

    sys.path.insert(0, sys.argv[1]); import wordgen   # argv[1]: "$(dirname "$0")"
    g = wordgen.Gen(seed)         # a 5,000-word vocabulary drawn from seed
    g.text(1, 3000)               # 3,000 words drawn with seed 1
    g.text(1, 3000, 100, 0.03)    # the same, 3% replaced (seed 100)
    wordgen.put(root, "x/a.txt", text)
"""
import os
import random


class Gen:
    def __init__(self, seed):
        r = random.Random(seed)
        self.vocab = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz")
                              for _ in range(r.randint(3, 9))) for _ in range(5000)]

    def text(self, seed, n, own=None, rate=0.0):
        """n words drawn with seed; with rate, each replaced with that
        probability by a word drawn with own."""
        b, o = random.Random(seed), random.Random(own)
        out = []
        for _ in range(n):
            v = self.vocab[b.randrange(5000)]
            if rate and o.random() < rate:
                v = self.vocab[o.randrange(5000)]
            out.append(v)
        return " ".join(out) + "\n"


def put(root, path, text):
    with open(os.path.join(root, path), "w") as f:
        f.write(text)
