"""A gate row's ratio held against a known truth, judged by the room the row was measured in.

In a room the run labelled clean, its floors holding, the point estimate lies within `tol` of the
truth. In a room it labelled CONTENDED (outside work came and went between the sides: a busy
process beside the test, another test), or where the row's own A/A or B/B floor failed, wall times
carry that work too and the point can move far; what the gate still promises there is its
interval: it reaches the truth's band. Either way the verdict is the test's own check.
"""


def ratio_near(row, truth, tol=0.13):
    first = row["first"]
    lo, hi = first["ci"]
    if "CONTENDED" in row.get("label", "") or first.get("floor_failed"):
        # Beside other work wall times carry it too, and not always in proportion (a Google
        # Benchmark gate measured 1.63 [1.56, 1.71] for a 1.5 beside a busy loop per CPU): the
        # interval reaches the truth's band. So where the row's own A/A or B/B floor failed: the
        # room moved while the load measured clean, and the gate says so beside its verdict (at
        # 973943b, round 5 of ten: a pinned gate's 1.5 read 1.26 [1.07, 1.45], A/A ±33% and B/B
        # ±23% both "FAIL imprecise", the room labelled clean).
        assert lo < truth * (1 + tol) and hi > truth * (1 - tol), ("the interval misses the truth",
                                                                 truth, row["label"], first)
    else:
        assert truth * (1 - tol) < first["ratio"] < truth * (1 + tol), (truth, row.get("label"), first)


def called(row, verdict, truth):
    """A known change of `truth` (head/base) in a gate row: called `verdict` ("slower": and
    confirmed), its ratio near the truth. In a room the run labelled CONTENDED the gate may rightly
    leave it inconclusive (its floors say how far the room moved), or call it at the first block and
    leave it unconfirmed at the second (02b12cd beside a busy loop per CPU: slower at block 1, A/A
    ±94%; block 2 inconclusive, A/A ±61%), never the other way or within noise at either block, and
    its interval still covers the truth."""
    contended = "CONTENDED" in row.get("label", "")
    unconfirmed = row["verdict"] == verdict == "slower" and not row["confirmed"]
    if contended and (row["verdict"] == "inconclusive" or unconfirmed):
        second = row.get("second") or {}
        assert second.get("verdict") in (None, verdict, "inconclusive"), ("block 2 says otherwise", row)
        print(f"{row['benchmark']}: {row['verdict']}{' unconfirmed' if unconfirmed else ''} in a {row['label']} "
              f"room (A/A ±{row['first']['aa']['halfwidth']:.0%})")
    else:
        assert row["verdict"] == verdict, row
        assert verdict != "slower" or row["confirmed"], row
    ratio_near(row, truth)


def exit_status(gate):
    """The exit status a gate.json's rows call for: 4 when a regression is confirmed, else 0."""
    return 4 if gate["regression"] else 0


def false_alarms_within_floors(gate):
    """Whether every regression a gate.json reports on a change known to be none lies within what
    its own floors say the room moved: a row labelled CONTENDED, its A/A or B/B floor failed, its
    ratio inside that floor's reach. Beside outside work the pairs need not be symmetric, and the
    gate's false-alarm bound (which assumes they are) does not hold there; it says so beside the
    verdict. Prints each such row; False when a regression has no such excuse (a real false alarm)."""
    ok = True
    for r in gate["rows"]:
        if not r.get("regression"):
            continue
        f = r["first"]
        reach = max(f["aa"]["halfwidth"], f["bb"]["halfwidth"])
        excused = "CONTENDED" in r.get("label", "") and f["floor_failed"] and abs(f["ratio"] - 1) < reach
        print(f"{r['benchmark']} {r['unit']} called {r['verdict']} in a {r.get('label')} room: ratio "
              f"{f['ratio']:.3f}, floors ±{reach:.1%}: {'within them' if excused else 'NOT within them'}")
        ok = ok and excused
    return ok


if __name__ == "__main__":
    # known_ratio.py GATE_JSON: exit 0 when every regression of a gate on no change lies within
    # the floors it measured (the shell's `no_alarm`, tests/integration/lib.sh).
    import json
    import sys
    sys.exit(0 if false_alarms_within_floors(json.load(open(sys.argv[1]))) else 1)
