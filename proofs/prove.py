#!/usr/bin/env python3
"""Runs every lemma and its negative control (`scripts/prove`); exit 0 when every lemma is
proved and every control refuted."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import actuators  # noqa: E402
import checker  # noqa: E402
import corridor  # noqa: E402
import envelope  # noqa: E402
import lemma  # noqa: E402
import moving  # noqa: E402
import shield  # noqa: E402

MODULES = (envelope, corridor, shield, actuators, checker, moving)


def main() -> int:
    t0 = time.time()
    lemmas = [lm for m in MODULES for lm in m.lemmas()]
    ok = lemma.run(lemmas)
    print(f"{len(lemmas)} lemmas, {len(lemmas)} controls, {time.time() - t0:.1f} s: {'all hold' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
