"""Environment packs: a designed pool exported as data, shared, installed and imported, and never trusted.

:mod:`.schema` is the one home of the format; :mod:`.export` writes packs, :mod:`.reading` opens them (folder,
tarball, parquet, installed distribution), :mod:`.importing` re-validates and stores them, :mod:`.installed` finds
pip-installed packs without importing anything, and :mod:`.suite` evaluates on one.
"""

from spade_core.packs.errors import PackError, PackFormatError, PackRefusedError
from spade_core.packs.export import ExportFilter, RunHistory, export_pack
from spade_core.packs.importing import ImportReport, import_pack
from spade_core.packs.reading import open_pack

__all__ = ["ExportFilter", "ImportReport", "PackError", "PackFormatError", "PackRefusedError", "RunHistory",
           "export_pack", "import_pack", "open_pack"]
