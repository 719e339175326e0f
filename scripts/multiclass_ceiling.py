#!/usr/bin/python3
"""Ceiling of the kernel softmax family on the shared multi-class splits
(issue 18; docs/design.md, "Multi-class classification", the ceiling table).

Multinomial LogisticRegression (scikit-learn) on the Gaussian features
exp(-|x - c|^2 / r^2), r = w sqrt(d), at centres c from the training rows
(inputs standardised with training statistics, as the Go benchmarks), an
unpenalised intercept and the L2 penalty |W|^2 / (2C): a dense MAP with one
shared precision 1/C. Prints the test errors and log loss for each width and
C; picking the best C on the test rows makes it an optimistic ceiling.

    /usr/bin/python3 scripts/multiclass_ceiling.py digits 0.61,0.75 10,100,1000 [all|spread:N|strat:N|rows:i,j,...] [nointercept]
"""
import os
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

DATA = os.path.join(os.environ.get("VRVM_DATA", "../shared/data"), "realworld")


def load(name):
    tr = np.loadtxt(os.path.join(DATA, name + "_train.csv"), delimiter=",", skiprows=1)
    te = np.loadtxt(os.path.join(DATA, name + "_test.csv"), delimiter=",", skiprows=1)
    x, y, xt, yt = tr[:, :-1], tr[:, -1].astype(int), te[:, :-1], te[:, -1].astype(int)
    m, s = x.mean(0), x.std(0)
    s[s == 0] = 1
    return (x - m) / s, y, (xt - m) / s, yt


def sqdist(a, b):
    return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T, 0)


def centres(spec, y):
    n = len(y)
    if spec == "all":
        return np.arange(n)
    kind, arg = spec.split(":")
    if kind == "spread":
        return np.round(np.linspace(0, n - 1, int(arg))).astype(int)
    if kind == "strat":
        per = int(arg)
        return np.concatenate([np.where(y == c)[0][np.round(np.linspace(0, (y == c).sum() - 1, per)).astype(int)]
                               for c in np.unique(y)])
    return np.array([int(i) for i in arg.split(",")])


def main():
    name, widths, cs = sys.argv[1], sys.argv[2], sys.argv[3]
    spec = sys.argv[4] if len(sys.argv) > 4 else "all"
    intercept = not (len(sys.argv) > 5 and sys.argv[5] == "nointercept")
    x, y, xt, yt = load(name)
    idx = centres(spec, y)
    d = x.shape[1]
    dtr, dte = sqdist(x, x[idx]), sqdist(xt, x[idx])
    for w in map(float, widths.split(",")):
        r2 = (w * np.sqrt(d)) ** 2
        f, ft = np.exp(-dtr / r2), np.exp(-dte / r2)
        for c in map(float, cs.split(",")):
            lr = LogisticRegression(C=c, max_iter=10000, tol=1e-8, fit_intercept=intercept).fit(f, y)
            p = lr.predict_proba(ft)
            err = int((p.argmax(1) != yt).sum())
            print(f"{name} centres={len(idx)} w={w:g} C={c:g}: {err} errors of {len(yt)} "
                  f"({100 * err / len(yt):.2f}%), log loss {log_loss(yt, p):.3f}", flush=True)


if __name__ == "__main__":
    main()
