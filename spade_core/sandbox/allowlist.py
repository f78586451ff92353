"""What sandboxed code may import: stand-in modules that expose only listed names, never a real module.

A real ``re`` reaches ``eval`` through ``re.enum``; ``typing``, ``dataclasses`` and ``functools`` reach
``sys.modules``; ``json`` reaches ``open``; numpy reaches ``ctypeslib`` (docs/design.md §7). So ``import re`` inside
the sandbox returns a :class:`StandInModule` built from an allow-list entry ``{"compile": "re:compile", ...}``:
only those attributes exist on it, it cannot be written to, and no exposed value may itself be a module.

The allow-list is :data:`BASE_ALLOWLIST` merged with every plugin's ``spade_sandbox_modules`` hook
(:func:`merged_allowlist`, run in the host; the merged plain-data mapping is sent to the sandbox launcher).
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterable, Mapping
from typing import Any

from spade_core.sandbox.violations import violation

AllowList = dict[str, dict[str, str]]


def _same(module: str, names: Iterable[str]) -> dict[str, str]:
    return {name: f"{module}:{name}" for name in names}


_MATH = (
    "acos acosh asin asinh atan atan2 atanh ceil comb copysign cos cosh degrees dist e erf erfc exp expm1 fabs "
    "factorial floor fmod frexp fsum gamma gcd hypot inf isclose isfinite isinf isnan isqrt lcm ldexp lgamma log "
    "log10 log1p log2 modf nan nextafter perm pi pow prod radians remainder sin sinh sqrt tan tanh tau trunc ulp"
).split()
_RE = (
    "compile match search fullmatch findall finditer sub subn split escape error "
    "IGNORECASE I MULTILINE M DOTALL S VERBOSE X ASCII A"
).split()
_STRING = "ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits punctuation printable whitespace capwords".split()
_ITERTOOLS = (
    "accumulate chain combinations combinations_with_replacement compress count cycle dropwhile filterfalse groupby "
    "islice pairwise permutations product repeat starmap takewhile tee zip_longest"
).split()
_OPERATOR = (
    "abs add and_ concat contains countOf eq floordiv ge gt indexOf inv invert is_ is_not itemgetter le lshift lt mod "
    "mul ne neg not_ or_ pos pow rshift sub truediv truth xor"
).split()  # attrgetter/methodcaller are left out: they call getattr natively and would bypass the guard
_STATISTICS = (
    "mean fmean geometric_mean harmonic_mean median median_low median_high median_grouped mode multimode pstdev "
    "pvariance stdev variance quantiles StatisticsError"
).split()
_TYPING = (
    "Any Optional Union List Dict Tuple Set FrozenSet Callable Iterable Iterator Sequence Mapping MutableMapping "
    "MutableSequence Deque DefaultDict Counter TypeVar cast"
).split()
_TEXTWRAP = "dedent indent wrap fill shorten".split()
_WRAPPERS = "spade_core.sandbox.wrappers"
_RE_PATTERN_FUNCTIONS = "compile match search fullmatch findall finditer sub subn split".split()

BASE_ALLOWLIST: AllowList = {
    "math": _same("math", _MATH),
    "re": {**_same("re", _RE), **{name: f"{_WRAPPERS}:re_{name}" for name in _RE_PATTERN_FUNCTIONS}},
    "json": _same("json", ("loads", "dumps", "JSONDecodeError")),
    "string": _same("string", _STRING),
    "itertools": _same("itertools", _ITERTOOLS),
    "collections": {
        **_same("collections", ("Counter", "deque", "defaultdict", "OrderedDict")),
        "namedtuple": f"{_WRAPPERS}:sandbox_namedtuple",
    },
    "heapq": {**_same("heapq", ("nlargest", "nsmallest", "merge")),
              **_same(_WRAPPERS, ("heappush", "heappop", "heapify", "heappushpop", "heapreplace"))},
    "bisect": {**_same("bisect", ("bisect", "bisect_left", "bisect_right")),
               **_same(_WRAPPERS, ("insort", "insort_left", "insort_right"))},
    "fractions": _same("fractions", ("Fraction",)),
    "statistics": _same("statistics", _STATISTICS),
    "copy": {"copy": "copy:copy", "deepcopy": f"{_WRAPPERS}:sandbox_deepcopy"},
    "functools": _same("functools", ("reduce", "cmp_to_key", "lru_cache", "cache", "partial")),
    "operator": _same("operator", _OPERATOR),
    "typing": _same("typing", _TYPING),
    "dataclasses": {"dataclass": f"{_WRAPPERS}:sandbox_dataclass", "field": "dataclasses:field"},
    "textwrap": _same("textwrap", _TEXTWRAP),
    "__future__": _same("__future__", ("annotations",)),
}
"""Safe standard-library pieces every sandbox offers. Plugins add more through ``spade_sandbox_modules``."""

AGENT_MODULES = frozenset(BASE_ALLOWLIST)
"""What agent-written code (the code domain) may import: the standard-library stand-ins, no plugin modules."""

IMPORT_HINTS: dict[str, str] = {
    "random": "use the rng passed to reset(rng, options) instead of the random module",
    "numpy": "numpy is only available where a domain plugin exposes it through spade_sandbox_modules",
    "gymnasium": "write a plain class; the host wraps it in a gymnasium.Env",
    "gym": "write a plain class; the host wraps it in a gymnasium.Env",
    "time": "environment code must not depend on the clock (it would not be deterministic)",
}


class AllowListError(ValueError):
    """An allow-list entry is malformed or resolves to a forbidden value (a module)."""


def check_allowlist(allowlist: Mapping[str, Mapping[str, str]], *, source: str = "allow-list") -> AllowList:
    """Validate the shape of an allow-list and return a plain-dict copy."""
    out: AllowList = {}
    if not isinstance(allowlist, Mapping):
        raise AllowListError(f"{source}: must map module names to {{attribute: 'module:attribute'}}")
    for name, attrs in allowlist.items():
        if not isinstance(name, str) or not all(part.isidentifier() for part in name.split(".")):
            raise AllowListError(f"{source}: {name!r} is not a valid module name")
        if not isinstance(attrs, Mapping):
            raise AllowListError(f"{source}: module {name!r} must map attribute names to 'module:attribute' strings")
        entry: dict[str, str] = {}
        for attr, target in attrs.items():
            if not isinstance(attr, str) or not attr.isidentifier() or (attr.startswith("_") and name != "__future__"):
                raise AllowListError(f"{source}: {name}.{attr!r}: exposed names must be identifiers without a leading '_'")
            if not isinstance(target, str) or target.count(":") != 1:
                raise AllowListError(f"{source}: {name}.{attr} must be 'real.module:attribute', got {target!r}")
            entry[attr] = target
        out[name] = entry
    return out


def merged_allowlist(extra: Iterable[tuple[str, Mapping[str, Mapping[str, str]]]] | None = None) -> AllowList:
    """The base allow-list merged with plugin contributions (``[(plugin name, mapping), ...]``).

    With ``extra=None`` the plugins' ``spade_sandbox_modules`` hook is collected. A plugin may add modules and
    add names to existing modules; it cannot redefine a name another source already maps differently.
    """
    if extra is None:
        extra = _plugin_contributions()
    merged: AllowList = {name: dict(attrs) for name, attrs in BASE_ALLOWLIST.items()}
    for plugin, mapping in extra:
        checked = check_allowlist(mapping, source=f"plugin {plugin!r} spade_sandbox_modules")
        for name, attrs in checked.items():
            entry = merged.setdefault(name, {})
            for attr, target in attrs.items():
                if attr in entry and entry[attr] != target:
                    raise AllowListError(
                        f"plugin {plugin!r} maps {name}.{attr} to {target!r} but it is already {entry[attr]!r}"
                    )
                entry[attr] = target
    return merged


def _plugin_contributions() -> list[tuple[str, Any]]:
    try:
        from spade_core.plugins import get_plugins
    except Exception:  # a broken plugin system must not disable the sandbox; base list only
        return []
    return get_plugins().collect("spade_sandbox_modules")


class StandInModule:
    """A read-only module look-alike: exactly the allow-listed attributes, nothing else."""

    def __init__(self, name: str, attrs: Mapping[str, Any]) -> None:
        object.__setattr__(self, "__spade_standin__", name)
        for key, value in attrs.items():
            object.__setattr__(self, key, value)

    def __getattr__(self, name: str) -> Any:
        module = object.__getattribute__(self, "__spade_standin__")
        raise violation(
            f"module {module!r} in the sandbox has no attribute {name!r}; available: {', '.join(exposed_names(self))}"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("sandbox modules are read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("sandbox modules are read-only")

    def __repr__(self) -> str:
        return f"<sandbox module {object.__getattribute__(self, '__spade_standin__')!r}>"


def exposed_names(standin: StandInModule) -> list[str]:
    return sorted(k for k in object.__getattribute__(standin, "__dict__") if not k.startswith("__"))


def resolve(target: str) -> Any:
    """Import ``"real.module:attribute"`` (trusted code, in the launcher) and return the attribute."""
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    value = module
    for part in attr.split("."):
        value = getattr(value, part)
    if isinstance(value, types.ModuleType):
        raise AllowListError(f"{target} is a module; expose functions, classes or constants, never modules")
    return value


def build_standins(allowlist: Mapping[str, Mapping[str, str]]) -> tuple[dict[str, StandInModule], dict[str, str]]:
    """Resolve every entry; return the stand-ins and ``{"module.attr": problem}`` for entries that failed."""
    standins: dict[str, StandInModule] = {}
    problems: dict[str, str] = {}
    for name, attrs in allowlist.items():
        values: dict[str, Any] = {}
        for attr, target in attrs.items():
            try:
                values[attr] = resolve(target)
            except Exception as exc:  # report per entry, keep the rest usable
                problems[f"{name}.{attr}"] = f"{type(exc).__name__}: {exc}"
        standins[name] = StandInModule(name, values)
    return standins, problems
