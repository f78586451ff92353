"""Package discovery for the folder -> import-name mapping (everything else lives in pyproject.toml).

The product's folders (``registry/``, ``plugins/domains/``, ...) install under ``spade_``-prefixed import names so that
nothing generic lands in site-packages. Every folder with an ``__init__.py`` under a mapped root is a package.
"""

from pathlib import Path

from setuptools import setup

PACKAGE_DIRS = {
    "spade_core": "spade_core",
    "spade_registry": "registry",
    "spade_trainers": "trainers",
    "spade_domains": "plugins/domains",
    "spade_tools": "plugins/tools",
}


def discover_packages() -> list[str]:
    packages = []
    for name, folder in PACKAGE_DIRS.items():
        for init in sorted(Path(folder).rglob("__init__.py")):
            parts = init.parent.relative_to(folder).parts
            packages.append(".".join((name, *parts)))
    return packages


setup(packages=discover_packages(), package_dir=PACKAGE_DIRS)
