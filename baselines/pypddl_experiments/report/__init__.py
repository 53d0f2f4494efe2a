"""Reports: the paper's Fast Downward protocol (Tables I and II), plan
readings of anytime runs, and the experiment report (Tables I-III, tokens,
McNemar tests, the per-instance figure) over any set of run records."""
