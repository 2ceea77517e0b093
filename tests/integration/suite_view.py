"""Reading noisefloor's terminal suite view back in tests (e2e_suites): the lines of the first
table of a unit, each benchmark's name joined with its numbers when the name took a line of its
own (a name too long to sit beside the conditions)."""


def table_lines(lines, unit="sec/op"):
    """The benchmark lines of the first `unit` table in `lines`, and the index of its heading."""
    head = next(i for i, l in enumerate(lines) if l.startswith(unit))
    body = []
    for l in lines[head + 1:]:
        if not l.strip():
            break
        if l.startswith(" ") and body and " ± " not in body[-1]:
            body[-1] += l
        else:
            body.append(l)
    return body, head
