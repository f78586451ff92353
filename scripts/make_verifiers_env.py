"""Make ``.venv-verifiers``: an environment of its own for verifiers 0.4 that still sees this interpreter's packages.

verifiers 0.4 pins ``mcp==2.0.0`` while openenv 0.10 needs ``mcp<2``, so its adapter is tested from a second
environment. That environment must see SPADE and everything installed beside it in the environment running this
script (a virtual environment, or the system interpreter): ``venv --system-site-packages`` would show the *base*
interpreter's packages instead, which in a virtual environment lack SPADE. So the new environment gets a ``.pth``
file that adds this interpreter's site directories (their own ``.pth`` files, editable installs included, are
processed) after its own, and verifiers with its pins is installed into it, shadowing only what it must.

Run with the interpreter whose packages the tests use: ``python scripts/make_verifiers_env.py [TARGET]``.
"""

from __future__ import annotations

import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

REQUIREMENTS = ("verifiers==0.4.0", "uv>=0.13,<0.14")  # uv runs verifiers' harness programs
PTH_NAME = "zz-spade-parent-environment.pth"  # sorts last: the environment's own packages come first


def parent_site_dirs() -> list[str]:
    """This interpreter's site directories, its own first (a venv's, then the base ones it includes)."""
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    out: list[str] = []
    for d in dirs:
        if d not in out and Path(d).is_dir():
            out.append(d)
    return out


def make(target: Path) -> Path:
    """Create (or refresh) the environment at ``target`` and return its interpreter."""
    venv.EnvBuilder(with_pip=True, clear=False, symlinks=True).create(target)
    python = target / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    lines = [f"import site; site.addsitedir({d!r})" for d in parent_site_dirs()]
    (Path(purelib) / PTH_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *REQUIREMENTS], check=True)
    return python


if __name__ == "__main__":
    made = make(Path(sys.argv[1] if len(sys.argv) > 1 else ".venv-verifiers").resolve())
    subprocess.run([str(made), "-c", "import verifiers.v1, spade_core"], check=True)
    print(f"{made}: verifiers 0.4 beside this environment's packages")
