"""scikit-learn references for the held-out sets (README.md): GaussianProcessRegressor
or GaussianProcessClassifier with ARD length scales, ARDRegression or
LogisticRegression, inputs (and a regression target) standardised with
training statistics. Run with Debian python3-sklearn: python3 reference.py"""
import numpy as np, glob, os
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import ARDRegression, LogisticRegression
from sklearn.gaussian_process import GaussianProcessRegressor, GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, WhiteKernel, ConstantKernel as C
import os
D=os.path.dirname(os.path.abspath(__file__))+"/"
for name,binary in [("friedman2",0),("friedman3",0),("friedman1b",0),("regress8",0),("classif",1),("moons",1),("circles",1),("classif20",1)]:
    tr=np.loadtxt(D+name+"_train.csv",delimiter=",",skiprows=1); te=np.loadtxt(D+name+"_test.csv",delimiter=",",skiprows=1)
    X,y=tr[:,:-1],tr[:,-1]; Xt,yt=te[:,:-1],te[:,-1]
    s=StandardScaler().fit(X); X=s.transform(X); Xt=s.transform(Xt); d=X.shape[1]
    out=[]
    if not binary:
        m,sd=y.mean(),y.std(); y=(y-m)/sd; yt=(yt-m)/sd
        for nm,mod in [("ARDRegression",ARDRegression()),("GPR ARD",GaussianProcessRegressor(C(1.0)*RBF(np.ones(d),(1e-2,1e5))+WhiteKernel(0.1),normalize_y=True,n_restarts_optimizer=2,random_state=0))]:
            mod.fit(X,y); mu,sdv=mod.predict(Xt,return_std=True)
            out.append(f"{nm} RMSE {np.sqrt(np.mean((mu-yt)**2)):.4f} cov {np.mean(np.abs(mu-yt)<=2*sdv):.3f}")
    else:
        for nm,mod in [("LogReg",LogisticRegression(max_iter=1000)),("GPC ARD",GaussianProcessClassifier(C(1.0)*RBF(np.ones(d),(1e-2,1e5)),random_state=0))]:
            mod.fit(X,y); p=mod.predict_proba(Xt)[:,1]
            out.append(f"{nm} Brier {np.mean((p-yt)**2):.4f} errors {int(np.sum((p>0.5)!=(yt==1)))}")
    print(name, "(standardised target)" if not binary else "", "; ".join(out), flush=True)
