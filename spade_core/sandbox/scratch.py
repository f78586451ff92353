"""Measuring and removing a worker's scratch tree: bounded walks that a hostile tree cannot break.

A worker controls its scratch dir completely: 1,500 nested directories (deeper than the recursion limit and than
``PATH_MAX``), thousands of files, FIFOs, sockets, symlink loops, entries renamed under the walker. Both walks here
work on directory descriptors (``openat`` with ``O_NOFOLLOW | O_DIRECTORY | O_NONBLOCK``: a link is never
followed, a FIFO never opened), hold a bounded number of descriptors, never recurse in Python and never build a
path, so their cost is linear in the entries they visit and nothing a worker writes can make them raise:

- :func:`measure` stops at ``max_entries`` entries or ``max_depth`` levels and reports that the tree is over
  either (the launcher kills such a worker);
- :func:`remove_tree` removes any tree: a directory found below the top is first renamed up to the top, so the
  walk never descends more than one level and its descriptors stay at two.

It also measures what no walk sees: files a worker unlinked but keeps open (:func:`open_unlinked_bytes`).
"""

from __future__ import annotations

import itertools
import os
import stat
from dataclasses import dataclass

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
MAX_ENTRIES = 4096
"""A scratch tree with more entries than this is over quota: the walk stops there, and a scratch tmpfs has this
many inodes besides its top directory (``SandboxLimits.max_scratch_mb`` bounds the bytes)."""
MAX_DEPTH = 64
"""A scratch tree deeper than this is over quota (no environment needs it; the walk holds one fd per level)."""
MAX_REMOVE_STEPS = 10_000_000
"""A hard stop for :func:`remove_tree` (each step removes or moves an entry, so it is never reached in practice)."""


@dataclass(frozen=True)
class Usage:
    """What :func:`measure` saw: bytes allocated, entries counted, and whether it stopped at a bound."""

    bytes: int
    entries: int
    too_deep: bool = False
    too_many: bool = False


def _open_dir(name: str, dir_fd: int | None) -> int | None:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None


def measure(path: str, max_entries: int, max_depth: int = MAX_DEPTH) -> Usage:
    """Bytes allocated under ``path`` and its entry count, bounded by ``max_entries`` and ``max_depth``."""
    top = _open_dir(path, None)
    if top is None:
        return Usage(0, 0)
    used = entries = 0
    stack: list[tuple[int, list[str]]] = []
    try:
        stack.append((top, _names(top)))
        while stack:
            fd, names = stack[-1]
            if not names:
                os.close(fd)
                stack.pop()
                continue
            name = names.pop()
            entries += 1
            if entries > max_entries:
                return Usage(used, entries, too_many=True)
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            used += st.st_blocks * 512
            if stat.S_ISDIR(st.st_mode):
                if len(stack) >= max_depth:
                    return Usage(used, entries, too_deep=True)
                child = _open_dir(name, fd)
                if child is not None:
                    stack.append((child, _names(child)))
        return Usage(used, entries)
    finally:
        for fd, _ in stack:
            os.close(fd)


def _names(fd: int) -> list[str]:
    try:
        return os.listdir(fd)
    except OSError:
        return []


def remove_tree(path: str) -> bool:
    """Remove ``path`` and everything under it without following links, recursing, or building long paths.

    Returns True when the path is gone. Never raises: whatever stays behind (a filesystem error) is left.
    """
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return not os.path.lexists(path)
    if not stat.S_ISDIR(st.st_mode):
        try:
            os.unlink(path)
        except OSError:
            return False
        return True
    top = _open_dir(path, None)
    if top is None:
        return False
    fresh = itertools.count()
    try:
        steps = 0
        previous: list[str] | None = None
        while steps < MAX_REMOVE_STEPS:
            names = sorted(_names(top))
            if not names or names == previous:  # empty, or nothing more can be removed
                break
            previous = names
            for name in names:
                steps += 1
                _clear_entry(top, name, fresh)
    finally:
        os.close(top)
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


def _clear_entry(top: int, name: str, fresh: itertools.count) -> None:
    """Remove one entry of the top directory; a directory's subdirectories are moved up to the top first."""
    try:
        st = os.stat(name, dir_fd=top, follow_symlinks=False)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        try:
            os.unlink(name, dir_fd=top)
        except OSError:
            pass
        return
    try:
        os.rmdir(name, dir_fd=top)
        return
    except OSError:
        pass
    child = _open_dir(name, top)
    if child is None:
        return
    try:
        for inner in _names(child):
            try:
                inner_st = os.stat(inner, dir_fd=child, follow_symlinks=False)
            except OSError:
                continue
            try:
                if stat.S_ISDIR(inner_st.st_mode):
                    os.rename(inner, f".spade-flat-{next(fresh)}", src_dir_fd=child, dst_dir_fd=top)
                else:
                    os.unlink(inner, dir_fd=child)
            except OSError:
                pass
    finally:
        os.close(child)
    try:
        os.rmdir(name, dir_fd=top)
    except OSError:
        pass


def open_unlinked_bytes(pid: int) -> int:
    """Bytes allocated by regular files that process ``pid`` holds open or mapped with no name left (unlinked
    but open, its unnamed stderr log): the scratch walk cannot see them. Lists ``/proc/<pid>/fd`` and
    ``/proc/<pid>/map_files`` and ``stat``s each entry (each file once); never opens or reads anything."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for kind in ("fd", "map_files"):
        base = f"/proc/{pid}/{kind}"
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names[:4096]:
            try:
                st = os.stat(f"{base}/{name}")
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_nlink == 0 and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total
