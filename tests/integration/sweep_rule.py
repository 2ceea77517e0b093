"""The knee of a sweep's curve by the rule of harness/stats/README.md §3.16, on the points of a
curve as `report --format json` writes them: the first point after the reference whose median
leaves the reference's median CI or whose CV band is worse. None when the curve has no knee."""

BANDS = ["excellent", "acceptable", "noisy", "do not trust"]


def knee(points):
    ref = points[0]
    lo, hi = ref["median_ci"]
    for p in points[1:]:
        if p["median"] < lo or p["median"] > hi or BANDS.index(p["band"]) > BANDS.index(ref["band"]):
            return p["value"]
    return None
