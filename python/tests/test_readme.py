"""The README's Python quick start runs as written, with what `pip install "./python[gym]"`
installs (issue 61: its first line needed gymnasium, which the plain install lacked)."""

import contextlib
import io
import re

import acres

from conftest import ROOT


def test_the_readme_snippet_runs_and_prints_what_it_says():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert 'pip install "./python[gym]"' in readme
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0].replace(" ", "") == "[9.1535.55]", lines
    assert lines[1] == "False", lines


def test_the_gym_extra_names_gymnasium():
    text = (ROOT / "python" / "pyproject.toml").read_text()
    extras = text.split("[project.optional-dependencies]")[1]
    assert re.search(r"^gym\s*=\s*\[[^\]]*gymnasium", extras, re.M), extras


def test_the_package_has_the_changelogs_version():
    newest = next(l[3:] for l in (ROOT / "CHANGELOG.md").read_text().splitlines() if l.startswith("## "))
    assert newest.split()[0] == acres.__version__, (newest, acres.__version__)
    from importlib.metadata import version
    assert version("acres") == acres.__version__
