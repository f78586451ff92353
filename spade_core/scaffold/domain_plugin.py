"""A new domain plugin package, written from :mod:`spade_core.scaffold.templates`.

The package is what ``tests/example_plugin`` shows by hand: a ``pyproject.toml`` whose ``spade`` entry point names
the plugin module, a :class:`~spade_core.plugins.contributions.DomainSpec`, a verification helper exposed to
sandboxed environment code, one seed environment in the designer format, and tests that check all of it through
SPADE's own gate. Names are checked before anything is written, and nothing is ever overwritten.
"""

from __future__ import annotations

import keyword
import string
from pathlib import Path

from spade_core.errors import SpadeError
from spade_core.scaffold import templates

MAX_NAME_CHARS = 32


class ScaffoldError(SpadeError):
    """A scaffold cannot be written: a bad name, a name that is taken, or a target that is not empty."""


def check_domain_name(name: str, taken: frozenset[str] = frozenset()) -> None:
    """A domain name is a short lowercase Python identifier (letters, digits, underscores; a letter first) that no
    loaded domain uses."""
    allowed = set(string.ascii_lowercase + string.digits + "_")
    if not (0 < len(name) <= MAX_NAME_CHARS and name[0] in string.ascii_lowercase and set(name) <= allowed):
        raise ScaffoldError(f"domain name {name!r}: use 1-{MAX_NAME_CHARS} lowercase letters, digits and "
                            "underscores, starting with a letter (e.g. 'logic' or 'unit_puzzles')")
    if keyword.iskeyword(name):
        raise ScaffoldError(f"domain name {name!r} is a Python keyword; pick another (e.g. '{name}_tasks')")
    if name in taken:
        raise ScaffoldError(f"domain name {name!r} is already loaded (`spade plugins` lists the domains); pick "
                            "another name")


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_") if part)


def domain_plugin_files(name: str) -> dict[str, str]:
    """Every file of the package for domain ``name``: relative path -> text."""
    package = f"spade_{name}"
    values = {"name": name, "package": package, "dist": f"spade-{name.replace('_', '-')}",
              "camel": _camel(name), "env_name": f"{_camel(name)}ClockShift"}
    files = {
        "pyproject.toml": templates.PYPROJECT,
        "README.md": templates.README,
        f"{package}/__init__.py": templates.PACKAGE_INIT,
        f"{package}/plugin.py": templates.PLUGIN,
        f"{package}/verify.py": templates.VERIFY,
        f"{package}/seeds/__init__.py": templates.SEEDS_INIT,
        f"{package}/seeds/clock_shift.py": templates.SEED,
        "tests/test_plugin.py": templates.TESTS,
    }
    return {path: string.Template(body).substitute(values) for path, body in files.items()}


def write_domain_plugin(name: str, target: Path, *, taken: frozenset[str] = frozenset()) -> list[Path]:
    """Write the package for domain ``name`` into ``target`` (created; it must not exist or be empty); returns
    the files written."""
    check_domain_name(name, taken)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldError(f"{target} already exists and is not an empty directory; pass a new directory")
    written = []
    for relative, body in domain_plugin_files(name).items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        written.append(path)
    return written
