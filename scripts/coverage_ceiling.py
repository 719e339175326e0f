#!/usr/bin/python3
"""Issue 47, acceptance 1: test RMSE and +-2 sd coverage on every shared real
regression split (diabetes, the paper's 10 Boston splits), for the ceiling,
scikit-learn's GaussianProcessRegressor (RBF with ARD length scales, or one
width, + WhiteKernel, normalize_y, inputs standardised with the training
statistics; the predictive sd includes the noise), and for `vrvm fit` with
the default kernel, -width auto and -kernel ard (`vrvm predict` gives the
predictive variance, noise included).

Usage: /usr/bin/python3 scripts/coverage_ceiling.py [-vrvm BIN] [-gp] [-only NAME]
  -vrvm BIN  the vrvm command (go build -o BIN ./cmd/vrvm); its rows are
             printed when given
  -gp        print the scikit-learn rows (n_restarts_optimizer=3, seed 0)
  -only NAME one split (diabetes, boston0 … boston9)
Run from the repository root with ../shared beside it (or VRVM_DATA set to
shared/data). Results: docs/benchmarks.md, "Coverage of the test targets".
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd


def splits(data):
    tr = pd.read_csv(os.path.join(data, 'realworld', 'diabetes_train.csv'))
    te = pd.read_csv(os.path.join(data, 'realworld', 'diabetes_test.csv'))
    yield 'diabetes', tr, te, 'target'
    b = pd.read_csv(os.path.join(data, 'boston.csv'))
    sp = pd.read_csv(os.path.join(data, 'boston_splits.csv'))
    for s in range(10):
        mask = np.zeros(len(b), bool)
        mask[sp[sp.split == s].row.values] = True
        yield f'boston{s}', b[~mask], b[mask], 'MEDV'


def gp_rows(name, tr, te, tg):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, WhiteKernel, ConstantKernel
    X, y = tr.drop(columns=tg).values.astype(float), tr[tg].values.astype(float)
    Xt, yt = te.drop(columns=tg).values.astype(float), te[tg].values.astype(float)
    mu, sd = X.mean(0), X.std(0)
    sd[sd == 0] = 1
    X, Xt = (X - mu) / sd, (Xt - mu) / sd
    d = X.shape[1]
    for ard in (True, False):
        k = ConstantKernel(1.0) * RBF(length_scale=np.ones(d) if ard else 1.0,
                                      length_scale_bounds=(1e-2, 1e5)) + WhiteKernel(0.1, (1e-6, 1e1))
        gp = GaussianProcessRegressor(k, normalize_y=True, n_restarts_optimizer=3, random_state=0)
        c0 = time.process_time()
        gp.fit(X, y)
        m, s = gp.predict(Xt, return_std=True)  # diag of the WhiteKernel: the noise is in s
        c1 = time.process_time()
        e = m - yt
        print(f'{name} GPR-{"ard" if ard else "rbf"} rmse {np.sqrt(np.mean(e**2)):.4f} '
              f'cov {np.mean(np.abs(e) <= 2 * s):.3f} in {np.sum(np.abs(e) <= 2 * s)}/{len(yt)} cpu {c1 - c0:.1f}',
              flush=True)


def vrvm_rows(binary, name, tr, te, tg, tmp):
    trf, tef = os.path.join(tmp, name + '_train.csv'), os.path.join(tmp, name + '_test.csv')
    tr.to_csv(trf, index=False)
    te.to_csv(tef, index=False)
    for v, flags in (('default', []), ('auto', ['-width', 'auto']), ('ard', ['-kernel', 'ard'])):
        model = os.path.join(tmp, f'{name}.{v}.json')
        c0 = os.times()
        subprocess.run([binary, 'fit', '-target', tg, *flags, '-o', model, trf], check=True,
                       stderr=subprocess.DEVNULL)
        c1 = os.times()
        out = subprocess.run([binary, 'predict', '-model', model, '-keep', tg, tef], check=True,
                             capture_output=True, text=True).stdout
        p = pd.read_csv(pd.io.common.StringIO(out))
        e = p['mean'] - p[tg]
        inside = np.abs(e) <= 2 * np.sqrt(p['variance'])
        cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
        print(f'{name} vrvm-{v} rmse {np.sqrt(np.mean(e**2)):.4f} cov {np.mean(inside):.3f} '
              f'in {np.sum(inside)}/{len(e)} cpu {cpu:.2f}', flush=True)


def main(argv):
    binary, gp, only = None, False, None
    i = 0
    while i < len(argv):
        if argv[i] == '-vrvm':
            binary, i = argv[i + 1], i + 1
        elif argv[i] == '-gp':
            gp = True
        elif argv[i] == '-only':
            only, i = argv[i + 1], i + 1
        else:
            sys.exit(__doc__)
        i += 1
    data = os.environ.get('VRVM_DATA', os.path.join('..', 'shared', 'data'))
    with tempfile.TemporaryDirectory() as tmp:
        for name, tr, te, tg in splits(data):
            if only and name != only:
                continue
            if gp:
                gp_rows(name, tr, te, tg)
            if binary:
                vrvm_rows(binary, name, tr, te, tg, tmp)


if __name__ == '__main__':
    main(sys.argv[1:])
