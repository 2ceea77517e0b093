"""A gate row's ratio held against a known truth, judged by the room the row was measured in.

In a room the run labelled clean, the point estimate lies within `tol` of the truth. In a room it
labelled CONTENDED (outside work came and went between the sides: a busy process beside the test,
another test), wall times carry that work too and the point can move far; what the gate still
promises there is its interval: it covers the truth. Either way the verdict is the test's own check.
"""


def ratio_near(row, truth, tol=0.13):
    first = row["first"]
    lo, hi = first["ci"]
    if "CONTENDED" in row.get("label", ""):
        assert lo < truth < hi, ("contended: the interval misses the truth", truth, row["label"], first)
    else:
        assert truth * (1 - tol) < first["ratio"] < truth * (1 + tol), (truth, row.get("label"), first)
