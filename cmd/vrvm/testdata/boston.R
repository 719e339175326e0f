# Writes the test files with R's write.csv: Rscript boston.R, run in this
# directory with VRVM_DATA naming the data directory (upstream/Boston.csv).
b <- read.csv(file.path(Sys.getenv("VRVM_DATA"), "upstream", "Boston.csv"), row.names = 1)
set.seed(19)
idx <- sample(nrow(b), 140)
cols <- c("crim","zn","indus","chas","nox","rm","age","dis","tax","ptratio","lstat","medv")
d <- b[idx, cols]
d$chas <- ifelse(d$chas == 1, "river", "inland")
d$tract <- paste0("tract ", rownames(d), ", \"Boston\"")
tr <- d[1:100, ]
te <- d[101:140, ]
tr$rm[c(5, 17, 40)] <- NA
tr$chas[23] <- NA
tr$lstat[60] <- NA
tr$medv[71] <- NA
write.csv(tr, "boston_train_r.csv")
# The file to score: no target, columns in another order, an extra text column.
te2 <- te[, c("tract", "lstat", "ptratio", "tax", "dis", "age", "rm", "nox", "chas", "indus", "zn", "crim")]
te2$note <- ifelse(te2$lstat > 10, "check, later", "ok")
te2$rm[c(3, 9)] <- NA
write.csv(te2, "boston_score_r.csv")
print(table(tr$chas, useNA = "ifany")); print(table(te$chas))
