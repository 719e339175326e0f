# Rewrites the files of boston.R the way pandas writes them (pandas 1.5.3):
# python3 boston.py, run in this directory after Rscript boston.R.
import pandas as pd
# pandas reads R's file (row names as the index) and writes it its own way:
# an empty first header field, NaN as empty cells, quotes only where needed.
tr = pd.read_csv("boston_train_r.csv", index_col=0)
tr.to_csv("boston_train_pandas.csv")
te = pd.read_csv("boston_score_r.csv", index_col=0)
te["medv"] = float("nan")  # an empty target column in the file to score
te.to_csv("boston_score_pandas.csv")
