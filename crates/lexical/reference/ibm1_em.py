#!/usr/bin/env python3
"""Reference IBM Model 1 EM (Brown et al. 1993; Koehn, *Statistical Machine Translation*,
§4.2.3), written from the textbook pseudo-code with dictionaries and exact fractions, to check
bitext-lexical's sparse, parallel EM (`crates/lexical/src/ibm1/tests.rs` holds its output).

    python3 crates/lexical/reference/ibm1_em.py
"""
from fractions import Fraction

CORPUS = [("das Haus", "the house"), ("das Buch", "the book"), ("ein Buch", "a book")]
NULL = None


def em(pairs, iterations, null):
    f_vocab = sorted({f for fs, _ in pairs for f in fs})
    e_vocab = sorted({e for _, es in pairs for e in es})
    rows = f_vocab + ([NULL] if null else [])
    t = {(e, f): Fraction(1, len(e_vocab)) for f in rows for e in e_vocab}
    for _ in range(iterations):
        count = {}
        total = {}
        for fs, es in pairs:
            fs = list(fs) + ([NULL] if null else [])
            for e in es:
                z = sum(t[(e, f)] for f in fs)
                for f in fs:
                    c = t[(e, f)] / z
                    count[(e, f)] = count.get((e, f), 0) + c
                    total[f] = total.get(f, 0) + c
        t = {(e, f): count.get((e, f), Fraction(0)) / total[f] for f in rows for e in e_vocab}
    return t


def main():
    pairs = [(d.split(), e.split()) for d, e in CORPUS]
    for null in (False, True):
        for iterations in (1, 2, 5):
            t = em(pairs, iterations, null)
            print(f"# null={null} iterations={iterations}: t(e|f) > 0")
            for (e, f), p in sorted(t.items(), key=lambda x: (str(x[0][1]), x[0][0])):
                if p > 0:
                    print(f"{f or 'NULL'}\t{e}\t{float(p):.12f}")


if __name__ == "__main__":
    main()
