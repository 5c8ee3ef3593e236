"""Resume functions of random programs: nested loops, try/except/finally, with blocks, early
exits and calls in random combinations, each checked at every offset a run reaches (as in
test_resume.py)."""

from __future__ import annotations

import random
import textwrap

import pytest
from test_resume import Report, arrivals, resume_at
from test_resume_corpus import Case, Recorder

_SEEDS = range(24)


def _kw(a, b=1, *, scale=2):
    return (a + b) * scale


class _Program:
    """Writes one random function body; every name it reads is assigned before the body."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.loops = 0
        self.names = ["a", "b", "acc"]

    def expr(self) -> str:
        r = self.rng
        x, y = r.choice(self.names), r.choice(self.names)
        return r.choice(
            [
                f"{x} + {y}",
                f"{x} * 3 - {y}",
                f"{x} // ({y} % 3)",  # raises ZeroDivisionError now and then
                f"_kw({x}, scale={y} % 4)",
                f"_kw({x}, {y})",
                f"len(log) + {x}",
                f"max({x}, {y}, key=abs)",
                f"({x} if {y} % 2 else -{x})",
            ]
        )

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, depth: int, size: int) -> None:
        for _ in range(size):
            self.statement(depth)

    def statement(self, depth: int) -> None:
        r = self.rng
        kinds = ["assign", "assign", "log", "print", "bump"]
        if depth < 4:
            kinds += ["for", "while", "if", "try_except", "try_finally", "with"]
        if self.loops:
            kinds += ["break", "continue"]
        kind = r.choice(kinds)
        if kind == "assign":
            name = r.choice(["a", "b", "acc", "c"])
            self.emit(depth, f"{name} = {self.expr()}")
            if name not in self.names:
                self.names.append(name)
        elif kind == "bump":  # writes the cell `acc` through the closure
            self.emit(depth, f"log.append(bump({self.expr()}) % 7)")
        elif kind == "log":
            self.emit(depth, f"log.append({self.expr()})")
        elif kind == "print":
            self.emit(depth, f'print("p", {self.expr()}, sep=":")')
        elif kind in ("break", "continue"):
            self.emit(depth, f"if {r.choice(self.names)} % 3 == 1:")
            self.emit(depth + 1, kind)
        elif kind == "for":
            var = f"i{depth}"
            self.emit(depth, f"for {var} in range({r.randint(0, 3)}):")
            self.names.append(var)
            self.loops += 1
            self.block(depth + 1, r.randint(1, 3))
            self.loops -= 1
            self.names.remove(var)
        elif kind == "while":
            var = f"w{depth}"
            self.emit(depth, f"{var} = 0")
            self.emit(depth, f"while {var} < {r.randint(1, 3)}:")
            self.emit(depth + 1, f"{var} += 1")
            self.loops += 1
            self.block(depth + 1, r.randint(1, 3))
            self.loops -= 1
        elif kind == "if":
            self.emit(depth, f"if {self.expr()} > 2:")
            self.block(depth + 1, r.randint(1, 2))
            self.emit(depth, "else:")
            self.block(depth + 1, r.randint(1, 2))
        elif kind == "try_except":
            self.emit(depth, "try:")
            self.block(depth + 1, r.randint(1, 3))
            self.emit(depth, "except ZeroDivisionError as error:")
            self.emit(depth + 1, 'log.append(("zero", str(error)))')
            if r.random() < 0.5:
                self.emit(depth, "else:")
                self.emit(depth + 1, 'log.append("else")')
        elif kind == "try_finally":
            self.emit(depth, "try:")
            self.block(depth + 1, r.randint(1, 3))
            if r.random() < 0.3:
                self.emit(depth + 1, f"if {r.choice(self.names)} > 4:")
                self.emit(depth + 2, "return acc, log")
            self.emit(depth, "finally:")
            self.emit(depth + 1, 'print("finally", acc)')
        else:
            self.emit(depth, f"with cm{r.randint(0, 1)} as entered:")
            self.emit(depth + 1, "log.append(entered.name)")
            self.block(depth + 1, r.randint(1, 2))
            if r.random() < 0.3:
                self.emit(depth + 1, f"if {r.choice(self.names)} > 5:")
                self.emit(depth + 2, "return acc, log")

    def source(self, seed: int) -> str:
        self.block(1, self.rng.randint(3, 6))
        body = "\n".join(self.lines)
        return textwrap.dedent(
            f"""\
            def random_{seed}(a, b, cm0, cm1):
                acc = 0
                log = []

                def bump(k):
                    nonlocal acc
                    acc += k
                    return acc

            {{body}}
                return acc, log
            """
        ).replace("{body}", body)


def _case(seed: int) -> Case:
    source = _Program(random.Random(seed)).source(seed)
    namespace = {"_kw": _kw}
    exec(compile(source, f"<random program {seed}>", "exec"), namespace)  # noqa: S102
    a, b = random.Random(seed + 1000).randint(-3, 6), random.Random(seed + 2000).randint(-3, 6)
    return Case(
        namespace[f"random_{seed}"],
        lambda: (a, b, Recorder("zero"), Recorder("one", suppress=seed % 2 == 0)),
    )


@pytest.mark.parametrize("seed", _SEEDS)
def test_random_program_resumes_at_every_offset(seed: int, capsys):
    case = _case(seed)
    report = Report()
    for offset, count in sorted(arrivals(case).items()):
        for arrival in sorted({1, count}):
            resume_at(case, offset, arrival, True, capsys, report)
    assert not report.failures, "\n".join(report.failures[:20])
    assert report.resumed > 5
