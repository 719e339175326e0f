"""Writes the held-out sets of issue 47 (vrvm/testdata/heldout/README.md).

Run once with Debian's python3-sklearn 1.2.1: python3 make.py
Each set: a seeded scikit-learn generator, a 70/30 split by
train_test_split(random_state=0, stratified for classes), CSV with a
header row, the target in the last column, values to 6 significant digits.
"""
import numpy as np
from sklearn import datasets as ds
from sklearn.model_selection import train_test_split

SETS = [
    ("friedman2", "regression", lambda: ds.make_friedman2(n_samples=400, noise=50.0, random_state=11)),
    ("friedman3", "regression", lambda: ds.make_friedman3(n_samples=400, noise=0.1, random_state=12)),
    ("friedman1b", "regression", lambda: ds.make_friedman1(n_samples=300, n_features=6, noise=0.5, random_state=13)),
    ("regress8", "regression", lambda: ds.make_regression(n_samples=300, n_features=8, n_informative=4, noise=10.0, random_state=14)),
    ("classif", "binary", lambda: ds.make_classification(n_samples=600, n_features=10, n_informative=4, n_redundant=2, flip_y=0.03, random_state=15)),
    ("moons", "binary", lambda: ds.make_moons(n_samples=400, noise=0.25, random_state=16)),
    ("circles", "binary", lambda: ds.make_circles(n_samples=400, noise=0.1, factor=0.5, random_state=17)),
    ("classif20", "binary", lambda: ds.make_classification(n_samples=800, n_features=20, n_informative=5, n_redundant=0, class_sep=0.8, random_state=18)),
]


def write(path, x, y, target_int):
    cols = [f"x{i+1}" for i in range(x.shape[1])] + ["target"]
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for row, t in zip(x, y):
            vals = [f"{v:.6g}" for v in row] + [str(int(t)) if target_int else f"{t:.6g}"]
            f.write(",".join(vals) + "\n")


for name, task, gen in SETS:
    x, y = gen()
    strat = y if task == "binary" else None
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.3, random_state=0, stratify=strat)
    write(f"{name}_train.csv", xtr, ytr, task == "binary")
    write(f"{name}_test.csv", xte, yte, task == "binary")
    print(name, task, xtr.shape, xte.shape)
