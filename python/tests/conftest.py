"""What the tests share: the repository, the CLI binary (built by the test command) and a
runner that returns its JSON output."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def acres_bin() -> Path:
    b = Path(os.environ.get("ACRES_BIN", ROOT / "target" / "release" / "acres"))
    if not b.exists():
        pytest.fail(f"{b}: build the CLI first (cargo build --release), or set ACRES_BIN")
    return b


def cli_code(*args):
    """Runs `acres -q ARGS`; returns its exit status and its stdout parsed as JSON (None
    where it printed nothing)."""
    r = subprocess.run([str(acres_bin()), "-q", *map(str, args)], capture_output=True, text=True)
    assert r.returncode in (0, 3, 4), f"acres {' '.join(map(str, args))}: {r.returncode}\n{r.stderr}"
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None)


def cli(*args, ok_codes=(0,)):
    """Runs `acres -q ARGS`; returns its stdout parsed as JSON (None where it printed nothing)."""
    r = subprocess.run([str(acres_bin()), "-q", *map(str, args)], capture_output=True, text=True)
    assert r.returncode in ok_codes, f"acres {' '.join(map(str, args))}: {r.returncode}\n{r.stderr}"
    return json.loads(r.stdout) if r.stdout.strip() else None


@pytest.fixture
def data():
    return ROOT / "data"
