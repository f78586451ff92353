"""An in-memory file system tool, modelled on BFCL's ``GorillaFileSystem`` (ls, cd, mkdir, touch, cat, echo, ...).

The tree is plain data: a directory is a dict of ``name -> node``, a file is its text content (a ``str``), so a
scenario is written as ``{"docs": {"notes.txt": "hello"}, "empty": {}}``. Paths may be absolute (``/docs/a.txt``)
or relative to the working directory and may use ``.`` and ``..``. Nothing touches the real disk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spade_tools.base import ToolDef, ToolError, ToolSet
from spade_tools.schema import obj

MAX_NODES = 5000
MAX_FILE_CHARS = 100_000
MAX_TOTAL_CHARS = 2_000_000
MAX_NAME_CHARS = 255
MAX_PATH_CHARS = 4096
MAX_LISTED = 500
MAX_DEPTH = 48

_PATH = {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS}


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise ToolError("a file or directory name must be a non-empty string")
    if name in (".", ".."):
        raise ToolError(f"'{name}' cannot be used as a name")
    if "/" in name or "\x00" in name:
        raise ToolError(f"name {name[:60]!r} must not contain '/' or NUL")
    if len(name) > MAX_NAME_CHARS:
        raise ToolError(f"a name has at most {MAX_NAME_CHARS} characters")
    return name


def _copy_tree(node: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    """A validated deep copy of a scenario tree (dicts are directories, strings are files)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"file system tree is nested deeper than {MAX_DEPTH} levels")
    out: dict[str, Any] = {}
    for name, child in node.items():
        try:
            _check_name(name)
        except ToolError as err:
            raise ValueError(f"bad name in file system tree: {err}") from None
        if isinstance(child, str):
            out[name] = child
        elif isinstance(child, Mapping):
            out[name] = _copy_tree(child, depth + 1)
        else:
            raise ValueError(f"file system node {name!r} must be a dict (directory) or str (file content)")
    return out


def _measure(node: Any) -> tuple[int, int]:
    """(number of nodes, characters of content) in a subtree, the node itself included."""
    if isinstance(node, str):
        return 1, len(node)
    nodes, chars = 1, 0
    for child in node.values():
        n, c = _measure(child)
        nodes, chars = nodes + n, chars + c
    return nodes, chars


def _height(node: Any) -> int:
    """Levels of directories below ``node`` (a file or an empty directory: 0)."""
    if isinstance(node, str) or not node:
        return 0
    return 1 + max(_height(child) for child in node.values())


def _join(parts: list[str]) -> str:
    return "/" + "/".join(parts)


class FileSystem(ToolSet):
    """A BFCL-style file system owned by one environment; ``snapshot()`` is the tree (the working directory is
    session state and is not compared)."""

    KIND = "filesystem"
    TOOL_DEFS = (
        ToolDef("pwd", "Print the current working directory.", obj({})),
        ToolDef("ls", "List a directory (default: the current one). Directories end with '/'.", obj({
            "path": {**_PATH, "description": "directory to list; default '.'"},
            "a": {"type": "boolean", "description": "also show hidden entries (names starting with '.')"},
        })),
        ToolDef("cd", "Change the current working directory.", obj({
            "folder": {**_PATH, "description": "directory to enter; '..' goes up, '/' is the root"},
        }, ["folder"])),
        ToolDef("mkdir", "Create a directory (its parent must exist unless parents is true).", obj({
            "dir_name": {**_PATH, "description": "path of the new directory"},
            "parents": {"type": "boolean", "description": "also create missing parent directories"},
        }, ["dir_name"])),
        ToolDef("touch", "Create an empty file if it does not exist.", obj({
            "file_name": {**_PATH, "description": "path of the file"},
        }, ["file_name"])),
        ToolDef("cat", "Show the content of a file.", obj({
            "file_name": {**_PATH, "description": "path of the file"},
        }, ["file_name"])),
        ToolDef("echo", "Print text, or write it to a file (replacing its content unless append is true).", obj({
            "content": {"type": "string", "maxLength": MAX_FILE_CHARS, "description": "the text"},
            "file_name": {**_PATH, "description": "file to write; omit to just print"},
            "append": {"type": "boolean", "description": "append instead of replacing"},
        }, ["content"])),
        ToolDef("mv", "Move or rename a file or directory. If destination is an existing directory, the source "
                      "moves inside it; existing files are never overwritten.", obj({
            "source": {**_PATH, "description": "what to move"},
            "destination": {**_PATH, "description": "new path, or an existing directory to move into"},
        }, ["source", "destination"])),
        ToolDef("cp", "Copy a file or directory (same destination rules as mv).", obj({
            "source": {**_PATH, "description": "what to copy"},
            "destination": {**_PATH, "description": "new path, or an existing directory to copy into"},
        }, ["source", "destination"])),
        ToolDef("rm", "Remove a file, or a directory with everything in it when recursive is true.", obj({
            "file_name": {**_PATH, "description": "path to remove"},
            "recursive": {"type": "boolean", "description": "required to remove a directory"},
        }, ["file_name"])),
        ToolDef("find", "Find files and directories under a path whose name contains a substring.", obj({
            "path": {**_PATH, "description": "where to search; default '.'"},
            "name": {"type": "string", "maxLength": MAX_NAME_CHARS, "description": "substring of the name; omit to list everything"},
        })),
        ToolDef("grep", "Show the lines of a file that contain a substring.", obj({
            "file_name": {**_PATH, "description": "path of the file"},
            "pattern": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "substring to look for"},
        }, ["file_name", "pattern"])),
    )

    def __init__(self, tree: Mapping[str, Any] | None = None, cwd: str = "/") -> None:
        self._root = _copy_tree(tree or {})
        nodes, chars = _measure(self._root)
        if nodes > MAX_NODES or chars > MAX_TOTAL_CHARS:
            raise ValueError(f"file system tree too large: {nodes} nodes, {chars} characters")
        self._nodes, self._chars = nodes, chars
        self._cwd: list[str] = []
        if cwd != "/":
            try:
                self.cd(cwd)
            except ToolError as err:
                raise ValueError(f"cwd: {err}") from None

    # -- state ----------------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {"root": _copy_tree(self._root)}

    # -- path helpers ---------------------------------------------------------------------------------------
    def _parts(self, path: str) -> list[str]:
        if not isinstance(path, str) or not path:
            raise ToolError("a path must be a non-empty string")
        parts = [] if path.startswith("/") else list(self._cwd)
        for piece in path.split("/"):
            if piece in ("", "."):
                continue
            if piece == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(_check_name(piece))
            if len(parts) > MAX_DEPTH:
                raise ToolError(f"paths are at most {MAX_DEPTH} levels deep")
        return parts

    def _node(self, parts: list[str]) -> Any:
        node: Any = self._root
        for name in parts:
            if not isinstance(node, dict) or name not in node:
                return None
            node = node[name]
        return node

    def _dir(self, parts: list[str], what: str) -> dict[str, Any]:
        node = self._node(parts)
        if node is None:
            raise ToolError(f"{what} '{_join(parts)}': no such directory")
        if not isinstance(node, dict):
            raise ToolError(f"{what} '{_join(parts)}' is a file, not a directory")
        return node

    def _file(self, path: str) -> tuple[list[str], str]:
        parts = self._parts(path)
        node = self._node(parts)
        if node is None:
            raise ToolError(f"'{_join(parts)}': no such file")
        if isinstance(node, dict):
            raise ToolError(f"'{_join(parts)}' is a directory, not a file")
        return parts, node

    def _check_growth(self, nodes: int, chars: int) -> None:
        if self._nodes + nodes > MAX_NODES:
            raise ToolError(f"the file system is full (at most {MAX_NODES} files and directories)")
        if self._chars + chars > MAX_TOTAL_CHARS:
            raise ToolError(f"the file system is full (at most {MAX_TOTAL_CHARS} characters of content)")

    def _guard_cwd(self, parts: list[str], verb: str) -> None:
        if not parts:
            raise ToolError(f"cannot {verb} the root directory")
        if self._cwd[: len(parts)] == parts:
            raise ToolError(f"cannot {verb} '{_join(parts)}': it is the current directory or one of its parents")

    # -- tools ----------------------------------------------------------------------------------------------
    def pwd(self) -> dict[str, Any]:
        return {"current_working_directory": _join(self._cwd)}

    def ls(self, path: str = ".", a: bool = False) -> dict[str, Any]:
        parts = self._parts(path)
        node = self._node(parts)
        if node is None:
            raise ToolError(f"'{_join(parts)}': no such file or directory")
        if isinstance(node, str):
            return {"path": _join(parts), "entries": [parts[-1]]}
        names = sorted(n + "/" if isinstance(child, dict) else n for n, child in node.items())
        if not a:
            names = [n for n in names if not n.startswith(".")]
        return {"path": _join(parts), "entries": names}

    def cd(self, folder: str) -> dict[str, Any]:
        parts = self._parts(folder)
        self._dir(parts, "cd:")
        self._cwd = parts
        return {"current_working_directory": _join(parts)}

    def mkdir(self, dir_name: str, parents: bool = False) -> dict[str, Any]:
        parts = self._parts(dir_name)
        if not parts:
            raise ToolError("'/' already exists")
        node: Any = self._root
        missing = 0
        for i, name in enumerate(parts[:-1]):
            child = node.get(name)
            if child is None:
                if not parents:
                    raise ToolError(f"'{_join(parts[: i + 1])}': no such directory (pass parents=true to create it)")
                missing = len(parts) - 1 - i
                break
            if not isinstance(child, dict):
                raise ToolError(f"'{_join(parts[: i + 1])}' is a file, not a directory")
            node = child
        if not missing and parts[-1] in node:
            raise ToolError(f"'{_join(parts)}' already exists")
        self._check_growth(missing + 1, 0)
        for name in parts[len(parts) - 1 - missing:]:
            node = node.setdefault(name, {})
        self._nodes += missing + 1
        return {"created": _join(parts)}

    def touch(self, file_name: str) -> dict[str, Any]:
        parts = self._parts(file_name)
        if not parts:
            raise ToolError("'/' is a directory")
        parent = self._dir(parts[:-1], "touch: parent")
        existing = parent.get(parts[-1])
        if isinstance(existing, dict):
            raise ToolError(f"'{_join(parts)}' is a directory")
        if existing is not None:
            return {"file": _join(parts), "created": False}
        self._check_growth(1, 0)
        parent[parts[-1]] = ""
        self._nodes += 1
        return {"file": _join(parts), "created": True}

    def cat(self, file_name: str) -> dict[str, Any]:
        parts, content = self._file(file_name)
        return {"file": _join(parts), "file_content": content}

    def echo(self, content: str, file_name: str | None = None, append: bool = False) -> dict[str, Any]:
        if file_name is None:
            return {"terminal_output": content}
        parts = self._parts(file_name)
        if not parts:
            raise ToolError("'/' is a directory")
        parent = self._dir(parts[:-1], "echo: parent")
        existing = parent.get(parts[-1])
        if isinstance(existing, dict):
            raise ToolError(f"'{_join(parts)}' is a directory")
        old = existing or ""
        new = old + content if append else content
        if len(new) > MAX_FILE_CHARS:
            raise ToolError(f"a file holds at most {MAX_FILE_CHARS} characters")
        self._check_growth(0 if existing is not None else 1, len(new) - len(old))
        parent[parts[-1]] = new
        self._nodes += 0 if existing is not None else 1
        self._chars += len(new) - len(old)
        return {"file": _join(parts), "characters": len(new)}

    def _target(self, source: str, destination: str, verb: str) -> tuple[list[str], Any, list[str]]:
        src = self._parts(source)
        node = self._node(src)
        if node is None:
            raise ToolError(f"'{_join(src)}': no such file or directory")
        if not src:
            raise ToolError(f"cannot {verb} the root directory")
        dst = self._parts(destination)
        existing = self._node(dst)
        if isinstance(existing, dict):
            dst = dst + [src[-1]]
            existing = self._node(dst)
        if existing is not None:
            raise ToolError(f"'{_join(dst)}' already exists; {verb} never overwrites")
        self._dir(dst[:-1], f"{verb}: destination directory")
        if isinstance(node, dict) and dst[: len(src)] == src:
            raise ToolError(f"cannot {verb} '{_join(src)}' into itself")
        if len(dst) + _height(node) > MAX_DEPTH:
            raise ToolError(f"paths are at most {MAX_DEPTH} levels deep")
        return src, node, dst

    def mv(self, source: str, destination: str) -> dict[str, Any]:
        src, node, dst = self._target(source, destination, "mv")
        self._guard_cwd(src, "move")
        del self._dir(src[:-1], "mv: source directory")[src[-1]]
        self._dir(dst[:-1], "mv: destination directory")[dst[-1]] = node
        return {"moved": _join(src), "to": _join(dst)}

    def cp(self, source: str, destination: str) -> dict[str, Any]:
        src, node, dst = self._target(source, destination, "cp")
        nodes, chars = _measure(node)
        self._check_growth(nodes, chars)
        self._dir(dst[:-1], "cp: destination directory")[dst[-1]] = node if isinstance(node, str) else _copy_tree(node)
        self._nodes += nodes
        self._chars += chars
        return {"copied": _join(src), "to": _join(dst)}

    def rm(self, file_name: str, recursive: bool = False) -> dict[str, Any]:
        parts = self._parts(file_name)
        node = self._node(parts)
        if node is None:
            raise ToolError(f"'{_join(parts)}': no such file or directory")
        self._guard_cwd(parts, "remove")
        if isinstance(node, dict) and not recursive:
            raise ToolError(f"'{_join(parts)}' is a directory; pass recursive=true to remove it and its contents")
        nodes, chars = _measure(node)
        del self._dir(parts[:-1], "rm: parent")[parts[-1]]
        self._nodes -= nodes
        self._chars -= chars
        return {"removed": _join(parts)}

    def find(self, path: str = ".", name: str | None = None) -> dict[str, Any]:
        parts = self._parts(path)
        base = self._dir(parts, "find:")
        matches: list[str] = []
        stack: list[tuple[list[str], dict[str, Any]]] = [(parts, base)]
        while stack:
            where, directory = stack.pop()
            for child_name in sorted(directory):
                child = directory[child_name]
                if name is None or name in child_name:
                    matches.append(_join(where + [child_name]) + ("/" if isinstance(child, dict) else ""))
                if isinstance(child, dict):
                    stack.append((where + [child_name], child))
        matches.sort()
        result: dict[str, Any] = {"matches": matches[:MAX_LISTED]}
        if len(matches) > MAX_LISTED:
            result["truncated"] = True
        return result

    def grep(self, file_name: str, pattern: str) -> dict[str, Any]:
        parts, content = self._file(file_name)
        lines = [line for line in content.split("\n") if pattern in line]
        return {"file": _join(parts), "matching_lines": lines[:MAX_LISTED]}
