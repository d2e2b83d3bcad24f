"""A lemma and its negative control, checked by z3 over the reals.

A lemma is proved when its hypotheses and the negation of its claim have no model (the
solver answers `unsat`). Its negative control is the same statement with a deliberate
error; the solver must find a model of the hypotheses where the wrong claim fails (a
counterexample), which shows that the hypotheses are satisfiable and that the claim is
not true for a trivial reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Sequence

import z3

ROOT = Path(__file__).resolve().parents[1]

#: The unit roundoffs of the rounding model: each operation's result is the real one
#: times (1 + delta) with |delta| at most this.
F64_EPS = 2.0**-53
F32_EPS = 2.0**-24

#: A solver's time limit for one query, ms.
TIMEOUT_MS = 60_000


def config(name: str) -> dict:
    """A shipped config file (configs/NAME), read so that no constant is copied."""
    return json.loads((ROOT / "configs" / name).read_text())


def rust_const(path: str, name: str) -> float:
    """An f64 constant of the Rust source (`const NAME: f64 = ...;` in src/PATH), read so
    that no constant is copied."""
    text = (ROOT / "src" / path).read_text()
    m = re.search(rf"const {name}: f64 = ([0-9.]+);", text)
    if m is None:
        raise SystemExit(f"proofs: `const {name}: f64` not found in src/{path}")
    return float(m.group(1))


@dataclass
class Lemma:
    """A claim under hypotheses, the Rust function it is about, its statement in words and
    its negative control (the same hypotheses, a wrong claim)."""

    name: str
    rust: str
    words: str
    hypotheses: Sequence[z3.BoolRef]
    claim: z3.BoolRef
    control: z3.BoolRef
    control_words: str
    #: The Rust property test that checks the function against the proven formula
    #: (searched in src/ by the run, so that a renamed test is noticed).
    test: str = ""


def _check(hyps: Sequence[z3.BoolRef], claim: z3.BoolRef):
    s = z3.SolverFor("QF_NRA")
    s.set("timeout", TIMEOUT_MS)
    s.add(*hyps)
    s.add(z3.Not(claim))
    return s.check(), s


def _model(s: z3.Solver) -> str:
    m = s.model()
    parts = []
    for d in sorted(m.decls(), key=lambda d: d.name()):
        if d.arity() > 0 or d.name().startswith("/"):
            continue  # the solver's interpretation of division by zero, not an input
        v = m[d]
        if z3.is_algebraic_value(v):
            v = v.approx(6)
        if z3.is_rational_value(v):
            text = f"{float(v.numerator_as_long()) / float(v.denominator_as_long()):.6g}"
        else:
            text = str(v)
        parts.append(f"{d.name()}={text}")
    return ", ".join(parts) if parts else "(no free variables: the statement as given is the counterexample)"


def _rust_sources() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "src").rglob("*.rs"))


def _tied(lm: Lemma, sources: str) -> List[str]:
    """What of the lemma's ties to the code is missing from src/: its test, its function."""
    missing = []
    if not lm.test or not re.search(rf"fn {re.escape(lm.test)}\b", sources):
        missing.append(f"test `{lm.test}`")
    fn = lm.rust.split(" ")[0].split("::")[-1]
    if not re.search(rf"fn {re.escape(fn)}\b", sources):
        missing.append(f"function `{fn}`")
    return missing


def run(lemmas: List[Lemma], out: Callable[[str], None] = print) -> bool:
    """Checks each lemma and its control; prints one line each; True when every lemma is
    proved, every control refuted and every lemma tied to a Rust function and test."""
    ok = True
    sources = _rust_sources()
    for lm in lemmas:
        missing = _tied(lm, sources)
        if missing:
            out(f"untied {lm.name}: no {' or '.join(missing)} in src/")
            ok = False
        r, s = _check(lm.hypotheses, lm.claim)
        if r == z3.unsat:
            out(f"proved {lm.name}")
        elif r == z3.sat:
            out(f"counterexample {lm.name}: {_model(s)}")
            ok = False
        else:
            out(f"unknown {lm.name}: {s.reason_unknown()}")
            ok = False
        r, s = _check(lm.hypotheses, lm.control)
        if r == z3.sat:
            out(f"refuted control {lm.name}: {_model(s)}")
        else:
            out(f"control not refuted {lm.name} ({r}): {lm.control_words}")
            ok = False
    return ok
