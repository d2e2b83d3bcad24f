"""The type stubs and annotations name the options' values (Literal types), so that a
type checker refuses a misspelt one before the run does."""

import subprocess
import sys
import textwrap
import typing

from acres.gym import PolarisEnv
import acres


def test_the_options_are_literal_types():
    hints = typing.get_type_hints(PolarisEnv.__init__)
    assert typing.get_args(hints["action"]) == ("command", "chunk")
    assert typing.get_args(hints["action_units"]) == ("normalized", "physical")
    moving = [a for a in typing.get_args(hints["moving"]) if a is not type(None)]
    assert typing.get_args(moving[0]) == ("off", "tracker", "oracle")
    assert typing.get_args(typing.get_type_hints(acres.Checker.__init__)["grip"]) == ("unknown", "dry")


def test_mypy_refuses_a_misspelt_option(tmp_path):
    src = tmp_path / "use.py"
    src.write_text(textwrap.dedent("""
        import acres
        from acres.gym import PolarisEnv
        PolarisEnv(action="chunk", moving="tracker", action_units="physical")
        acres.Checker("farm_yard_to_east_lane.json", grip="dry")
        acres.Sim("opening", moving="oracle")
        PolarisEnv(action="steer")
        acres.Chain("farm_yard_to_east_lane.json", grip="wet")
    """))
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(src)],
        capture_output=True, text=True,
    )
    errors = [l for l in out.stdout.splitlines() if ": error:" in l]
    # Exactly the two misspelt options, on their lines.
    assert len(errors) == 2, out.stdout
    assert "use.py:7:" in errors[0] and "'steer'" in errors[0]
    assert "use.py:8:" in errors[1] and "'wet'" in errors[1]
