#!/usr/bin/env python3
# famlib.py ROOT N WORDS - the benchmarks' generated library: N books of
# WORDS words in families of 4 (a base, two near copies with 2% of the
# words changed, a third of the base), spread over 97 folders; the same
# bytes for the same arguments.
import os, random, sys
root, n, nw = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(16)
vocab = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 9)))
         for _ in range(20000)]
for i in range(n):
    fam, k = divmod(i, 4)		# families of 4: a base, 2 near copies, a part
    b = random.Random(fam)
    ws = [vocab[b.randrange(len(vocab))] for _ in range(nw)]
    if k in (1, 2):
        o = random.Random(1000003 * fam + k)
        ws = [vocab[o.randrange(len(vocab))] if o.random() < 0.02 else w for w in ws]
    elif k == 3:
        ws = ws[:nw // 3]
    d = os.path.join(root, "d%03d" % (i % 97))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "b%06d.txt" % i), "w") as f:
        f.write(" ".join(ws) + "\n")
