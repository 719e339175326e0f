#!/usr/bin/python3
"""Many inputs of which few matter: vrvm fit's default (one learned
Gaussian width) against -kernel ard, with scikit-learn's references
(README, "Many inputs").

Generates three data sets with scikit-learn's make_classification (fixed
seeds; 70/30 splits stratified by class, random_state 0), fits each with
"vrvm fit" (inputs standardised by the command, its default) with and
without -kernel ard, predicts the test rows with "vrvm predict", and prints
the test error, the log loss and the CPU seconds of the fit; then
LogisticRegression and SVC (grid-searched C and gamma, 5-fold, Platt-scaled
probabilities) on the same standardised splits.

    /usr/bin/python3 scripts/many_inputs.py path/to/vrvm
"""
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

SETS = {
    # name: (rows, inputs, informative, classes, seed)
    "binary, 50 inputs, 10 informative": (600, 50, 10, 2, 11),
    "binary, 200 inputs, 8 informative": (600, 200, 8, 2, 12),
    "4 classes, 200 inputs, 8 informative": (700, 200, 8, 4, 2),
}


def split(rows, inputs, informative, classes, seed):
    x, y = make_classification(rows, inputs, n_informative=informative, n_classes=classes,
                               n_clusters_per_class=1 if classes > 2 else 2, random_state=seed)
    df = pd.DataFrame(x, columns=["x%d" % i for i in range(inputs)])
    df["y"] = y
    return train_test_split(df, test_size=0.3, random_state=0, stratify=y)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def vrvm(binary, tmp, train, test, flags):
    tr, te, model = (os.path.join(tmp, f) for f in ("train.csv", "test.csv", "model.json"))
    train.to_csv(tr, index=False)
    test.to_csv(te, index=False)
    c0 = children_cpu()
    subprocess.run([binary, "fit", "-task", "classification", "-target", "y", "-quiet", "-o", model] + flags + [tr], check=True)
    cpu = children_cpu() - c0
    out = subprocess.run([binary, "predict", "-model", model, te], check=True, capture_output=True, text=True).stdout
    pred = pd.read_csv(pd.io.common.StringIO(out))
    y = test["y"].to_numpy()
    if "p_moderated" in pred:  # two classes: P(t = 1)
        p1 = pred["p_moderated"].to_numpy()
        prob = np.column_stack([1 - p1, p1])
        labels = pred["label"].to_numpy().astype(int)
    else:
        cols = sorted((c for c in pred if c.startswith("p_")), key=lambda c: int(c[2:]))
        prob = pred[cols].to_numpy()
        labels = pred["label"].to_numpy().astype(int)
    return np.mean(labels != y), log_loss(y, prob, labels=list(range(prob.shape[1]))), cpu


def main():
    binary = sys.argv[1]
    for name, spec in SETS.items():
        train, test = split(*spec)
        print(name)
        with tempfile.TemporaryDirectory() as tmp:
            for label, flags in (("vrvm, default width", []), ("vrvm -kernel ard", ["-kernel", "ard"])):
                err, ll, cpu = vrvm(binary, tmp, train, test, flags)
                print("  %-22s error %5.1f %%  log loss %.3f  fit %.1f s CPU" % (label, 100 * err, ll, cpu))
        x, y = train.drop(columns="y").to_numpy(), train["y"].to_numpy()
        xt, yt = test.drop(columns="y").to_numpy(), test["y"].to_numpy()
        sc = StandardScaler().fit(x)
        x, xt = sc.transform(x), sc.transform(xt)
        lr = LogisticRegression(max_iter=5000).fit(x, y)
        svc = GridSearchCV(SVC(probability=True, random_state=0),
                           {"C": [0.1, 1, 10, 100], "gamma": ["scale", 0.01, 0.1, 1]}, cv=5).fit(x, y)
        for label, m in (("LogisticRegression", lr), ("SVC (grid)", svc)):
            print("  %-22s error %5.1f %%  log loss %.3f" % (label, 100 * np.mean(m.predict(xt) != yt),
                                                           log_loss(yt, m.predict_proba(xt))))


if __name__ == "__main__":
    main()
