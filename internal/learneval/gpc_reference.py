"""GaussianProcessClassifier (constant x RBF, one width and ARD) on the shared
binary splits, inputs standardised with training statistics: the dense
model's ceiling of docs/benchmarks.md. python3 gpc_reference.py breast digits38"""
import sys, time, numpy as np
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel as C
from sklearn.preprocessing import StandardScaler
import os
D=os.path.join(os.environ.get("VRVM_DATA", "../shared/data"), "realworld") + "/"
for name in sys.argv[1:]:
    tr=np.loadtxt(D+name+"_train.csv",delimiter=",",skiprows=1); te=np.loadtxt(D+name+"_test.csv",delimiter=",",skiprows=1)
    X,y=tr[:,:-1],tr[:,-1]; Xt,yt=te[:,:-1],te[:,-1]
    s=StandardScaler().fit(X); X=s.transform(X); Xt=s.transform(Xt)
    # constant columns (digits) give nan after scaling: zero them
    X=np.nan_to_num(X); Xt=np.nan_to_num(Xt)
    d=X.shape[1]
    for ard in (False, True):
        t0=time.process_time()
        ls=np.full(d, np.sqrt(d)) if ard else np.sqrt(d)
        k=C(1.0,(1e-3,1e4))*RBF(ls,(1e-2,1e5))
        g=GaussianProcessClassifier(kernel=k, n_restarts_optimizer=0, random_state=0).fit(X,y)
        p=g.predict_proba(Xt)[:,1]
        err=np.mean((p>0.5)!=(yt==1)); br=np.mean((p-yt)**2)
        print(f"{name} GPC ard={ard}: error {100*err:.2f}% ({int(round(err*len(yt)))}) Brier {br:.4f} cpu {time.process_time()-t0:.1f}s kernel {g.kernel_}", flush=True)
