"""``spade new``: write the skeleton of a third-party plugin package that installs, lists, validates and passes its
own tests unchanged (:mod:`spade_core.scaffold.domain_plugin`)."""

from spade_core.scaffold.domain_plugin import ScaffoldError, domain_plugin_files, write_domain_plugin

__all__ = ["ScaffoldError", "domain_plugin_files", "write_domain_plugin"]
