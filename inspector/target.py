"""Resolve a command-line TARGET (`package.module:attr` or `path/to/file.py:attr`) to something runnable.

A TARGET names a `CompiledGraph`, a `Graph` (compiled here), an agent (anything with `.compiled`), a
LangGraph `StateGraph` or compiled graph (run through `inspector.adapters.langgraph`), or a zero-argument
callable returning one of those. Duck typing keeps this module free of engine imports
beyond what the target itself pulls in.

Two rules hold whoever named the TARGET (the command line, a recording's header, a confirmation):

- **Nothing of the standard library.** A TARGET whose module is a standard-library module (by name,
  or by the file it would be loaded from: under the interpreter's stdlib folders and outside every
  site-packages folder) is refused before it is imported: `os:abort`, `http.server:test` and
  `tempfile:mkdtemp` name no graph, and importing or calling them only does harm.
- **Only graphs, agents and factory functions.** The attribute's type is checked before anything is
  called: a zero-argument factory must be a function written in Python (or a bound method, or a
  `functools.partial` of one) whose code lives outside the standard library; a builtin, a class or
  any other callable object is refused uncalled.

A `path/to/file.py:attr` TARGET is loaded under a name derived from the file, so the names of what it
defines (node functions, classes in recorded values, checkpointed types) are the same on every call
and in every process (`module_name_for`): the file's stem, as `import stem` would name it, unless
that is a standard-library name, not an identifier, or already taken by another file in this process;
then `_inspector_target_<stem>_<8 hex of the resolved path's SHA-256>`.

`locate_target` finds where a TARGET's module would come from without running any of it: the fork
command asks it before deciding whether the user agreed to run that code (`inspector.trust`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import keyword
import os
import site
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.adapters.detect import is_langgraph
from inspector.errors import TargetError

__all__ = ["LoadedTarget", "TargetSource", "load_target", "locate_target", "module_name_for"]

_LOAD_FAILURES = (Exception, SystemExit, KeyboardInterrupt)
"""What running the user's code while loading a TARGET may raise and we report as a TargetError: a
script's `sys.exit()` is no exit of ours, and a `KeyboardInterrupt` raised by the module itself (not a
Ctrl-C of ours: nothing of ours runs yet) would otherwise end the command with status 130 and no word."""


@dataclass(frozen=True)
class LoadedTarget:
    """What a TARGET resolved to. `runnable` is the agent when there is one, else the compiled graph."""

    spec: str
    compiled: Any
    runnable: Any
    is_agent: bool

    def topology(self) -> Any:
        return self.compiled.topology()


@dataclass(frozen=True)
class TargetSource:
    """Where a TARGET's module would come from, found without running any of it (`locate_target`).

    `module` is the dotted module name (for a file, the name it is loaded under); `origin` the file it
    is (or would be) loaded from, resolved, or None when no file backs it (not found, a namespace
    package); `is_file` whether the TARGET gave a file path."""

    spec: str
    module: str
    attribute: str
    origin: Path | None
    is_file: bool


def _split(spec: str) -> tuple[str, str]:
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise TargetError(
            f"TARGET `{spec}` must look like `package.module:attribute` or `path/to/file.py:attribute` "
            "(a colon separates the module from the attribute)."
        )
    return module_part, attr


def _looks_like_file(module_part: str) -> bool:
    return module_part.endswith(".py") or "/" in module_part or "\\" in module_part


def _file_path(module_part: str, spec: str) -> Path:
    path = Path(module_part)
    if path.is_dir():
        raise TargetError(
            f"TARGET `{spec}`: `{module_part}` is a directory, not a Python file. Give "
            "`path/to/file.py:attribute`, or `package.module:attribute` for a package."
        )
    if not path.is_file():
        raise TargetError(
            f"TARGET `{spec}`: file `{module_part}` does not exist. Give `path/to/file.py:attribute` "
            "with a path relative to the current directory, or `package.module:attribute`."
        )
    return path


def _same_file(module: object, path: Path) -> bool:
    origin = getattr(module, "__file__", None)
    try:
        return isinstance(origin, str) and Path(origin).resolve() == path
    except OSError:
        return False


def _stem_is_free(stem: str, path: Path) -> bool:
    """Whether naming `path`'s module `stem` takes nothing from anyone: no other file is imported under
    that name, and `import stem` would find no other module (a user's `langgraph.py` must not stand in
    for the installed package when the inspector imports it)."""
    loaded = sys.modules.get(stem)
    if loaded is not None:
        return _same_file(loaded, path)
    found = _find_spec_quietly(stem)
    if found is None:
        return True
    return bool(found.has_location and found.origin) and Path(str(found.origin)).resolve() == path


def module_name_for(path: Path) -> str:
    """The module name a `file.py:attr` TARGET is loaded under: the same for the same file on every call
    (see the module docstring), so what it defines is named the same in every recording and export."""
    resolved = path.resolve()
    chosen = _NAMES_CHOSEN.get(resolved)
    if chosen is None:
        chosen = _NAMES_CHOSEN[resolved] = _module_name(resolved)
    return chosen


_NAMES_CHOSEN: dict[Path, str] = {}
"""The name each file was given in this process, kept: loading a file puts its folder on `sys.path`,
after which `import stem` finds the file itself, and a second load would have taken the plain stem
where the first (finding an installed `agents` package, say) had taken the hashed name, and taken
`agents` from that package for the rest of the process."""


def _module_name(resolved: Path) -> str:
    stem = resolved.stem
    usable = (
        stem.isidentifier()
        and not keyword.iskeyword(stem)
        and stem not in sys.stdlib_module_names
        and stem not in sys.builtin_module_names
    )
    if usable and _stem_is_free(stem, resolved):
        return stem
    digest = hashlib.sha256(str(resolved).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    safe = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in stem)
    return f"_inspector_target_{safe}_{digest}"


def _search_from_cwd() -> None:
    """A `package.module` TARGET is looked for in the current directory too, as `python -m` would."""
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))


def _find_spec_quietly(name: str) -> importlib.machinery.ModuleSpec | None:
    """The spec `import name` would use, found without importing anything: a parent package is not
    imported (its `__init__` is code too); its spec's search locations are asked instead."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return getattr(loaded, "__spec__", None)
    parent, _, _ = name.rpartition(".")
    if not parent:
        try:
            return importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
    parent_spec = _find_spec_quietly(parent)
    locations = None if parent_spec is None else parent_spec.submodule_search_locations
    if locations is None:
        return None
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            found = find(name, list(locations))
        except (ImportError, ValueError):
            continue
        if found is not None:
            return found
    return None


def locate_target(spec: str, *, search_cwd: bool = True) -> TargetSource:
    """Where `spec`'s module would be loaded from, without running any of it; a standard-library module
    is refused here (`TargetError`), before anything is imported. `search_cwd=False` leaves `sys.path`
    as it is (the `Recorder`'s trust hook, in a process that is not ours: its module is imported)."""
    module_part, attr = _split(spec)
    if _looks_like_file(module_part):
        path = _file_path(module_part, spec).resolve()
        source = TargetSource(spec, module_name_for(path), attr, path, True)
    else:
        if module_part.partition(".")[0] == "__main__":
            raise TargetError(
                f"TARGET `{spec}` names `__main__`, the program running now (the inspector itself), not a "
                "module of yours: give `package.module:attribute` or `path/to/file.py:attribute`."
            )
        if search_cwd:
            _search_from_cwd()
        found = _find_spec_quietly(module_part)
        origin = None
        if found is not None and found.has_location and found.origin:
            origin = Path(found.origin).resolve()
        elif found is not None and found.origin in ("built-in", "frozen"):
            _refuse_stdlib(spec, module_part)
        source = TargetSource(spec, module_part, attr, origin, False)
    if not source.is_file and _stdlib_name(module_part):
        _refuse_stdlib(spec, module_part)
    if source.origin is not None and _in_stdlib(source.origin):
        _refuse_stdlib(spec, str(source.origin))
    return source


def _refuse_stdlib(spec: str, what: str) -> None:
    raise TargetError(
        f"TARGET `{spec}` names `{what}`, which is part of Python's standard library: the standard "
        "library holds no graph, agent or graph factory, so it is not imported or called as a TARGET. "
        "Name a graph or agent of your own code."
    )


def _stdlib_name(module: str) -> bool:
    top = module.partition(".")[0]
    return top in sys.stdlib_module_names or top in sys.builtin_module_names


@functools.cache
def _stdlib_dirs() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(the interpreter's standard-library folders, the site-packages folders inside or beside them)."""
    stdlib: set[Path] = {Path(os.__file__).resolve().parent}
    for key in ("stdlib", "platstdlib"):
        for prefix in {sys.prefix, sys.base_prefix}:
            where = sysconfig.get_path(
                key, vars={"base": prefix, "platbase": prefix, "installed_base": prefix}
            )
            if where:
                stdlib.add(Path(where).resolve())
    sites: set[Path] = set()
    for key in ("purelib", "platlib"):
        where = sysconfig.get_path(key)
        if where:
            sites.add(Path(where).resolve())
    for where in [*getattr(site, "getsitepackages", lambda: [])(), site.getusersitepackages()]:
        sites.add(Path(where).resolve())
    return tuple(stdlib), tuple(sites)


def _in_stdlib(path: Path) -> bool:
    """Whether `path` lies in a standard-library folder and in no site-packages folder."""
    stdlib, sites = _stdlib_dirs()
    return any(path.is_relative_to(d) for d in stdlib) and not any(path.is_relative_to(d) for d in sites)


def _import_module(source: TargetSource) -> Any:
    spec, module_part = source.spec, source.module
    if source.is_file:
        assert source.origin is not None
        path = source.origin
        name = source.module
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise TargetError(f"TARGET `{spec}`: `{path}` cannot be loaded as a Python file.")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        parent = str(path.parent)
        if parent not in sys.path:
            sys.path.insert(0, parent)
        try:
            module_spec.loader.exec_module(module)
        except _LOAD_FAILURES as exc:  # a script's sys.exit() or argparse is no exit of ours
            if sys.modules.get(name) is module:
                del sys.modules[name]
            raise TargetError(
                f"TARGET `{spec}`: running `{spec.rpartition(':')[0]}` failed with "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return module
    _search_from_cwd()
    try:
        return importlib.import_module(module_part)
    except ModuleNotFoundError as exc:
        if not _is_module_or_parent(exc.name, module_part):
            # The target module exists; something it imports does not.
            raise TargetError(
                f"TARGET `{spec}`: importing `{module_part}` failed with ModuleNotFoundError: {exc}. "
                "Install the missing package in this environment."
            ) from exc
        raise TargetError(
            f"TARGET `{spec}`: module `{module_part}` was not found ({exc}). Check the spelling, install the "
            "package, or run from the directory that contains it."
        ) from exc
    except _LOAD_FAILURES as exc:
        raise TargetError(
            f"TARGET `{spec}`: importing `{module_part}` failed with {type(exc).__name__}: {exc}"
        ) from exc


def _is_module_or_parent(missing: str | None, module_part: str) -> bool:
    """Whether the missing module is the target itself or a package on its dotted path."""
    if missing is None:
        return True
    return module_part == missing or module_part.startswith(missing + ".")


def _takes_no_arguments(fn: Any) -> bool:
    """Whether `fn()` binds; unknown signatures (some builtins) are given the benefit of the doubt."""
    try:
        inspect.signature(fn).bind()
    except TypeError:
        return False
    except ValueError:
        return True
    return True


def _describe(obj: Any, *, called: bool) -> str:
    if isinstance(obj, type):
        return f"is the class `{obj.__name__}`"
    name = type(obj).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{'returned' if called else 'is'} {article} `{name}` object"


def _factory_function(obj: Any) -> Any:
    """The Python function behind a factory (through `functools.partial` and bound methods), or None."""
    fn = obj
    while isinstance(fn, functools.partial):
        fn = fn.func  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if inspect.ismethod(fn):
        fn = fn.__func__
    return fn if inspect.isfunction(fn) else None


def _check_factory(obj: Any, spec: str) -> None:
    """Refuse, before it is called, a callable that cannot be a graph factory of the user's own: a
    builtin (`os.abort`), a callable object, or a function from the standard library (`mkdtemp`)."""
    fn = _factory_function(obj)
    if fn is None:
        raise TargetError(
            f"TARGET `{spec}` {_describe(obj, called=False)}, not a CompiledGraph, Graph, agent or a "
            "zero-argument factory function written in Python; it was not called."
        )
    module = getattr(fn, "__module__", None) or ""
    filename = getattr(getattr(fn, "__code__", None), "co_filename", "") or ""
    stdlib_file = bool(filename) and not filename.startswith("<") and _in_stdlib(Path(filename).resolve())
    if _stdlib_name(module) or stdlib_file:
        raise TargetError(
            f"TARGET `{spec}` is `{module}.{fn.__qualname__}`, a function of Python's standard library, "
            "not a graph factory of your own; it was not called."
        )


def _resolve(obj: Any, spec: str, *, called: bool = False, factories: bool = True) -> LoadedTarget:
    if is_langgraph(obj):  # before the duck typing below: a StateGraph also has compile and add_edge
        return _langgraph(obj, spec)
    if hasattr(obj, "compiled") and (hasattr(obj, "invoke") or hasattr(obj, "run")):
        return LoadedTarget(spec=spec, compiled=obj.compiled, runnable=obj, is_agent=True)
    if callable(getattr(obj, "topology", None)) and hasattr(obj, "invoke"):
        return LoadedTarget(spec=spec, compiled=obj, runnable=obj, is_agent=False)
    if callable(getattr(obj, "compile", None)) and hasattr(obj, "add_edge"):
        try:
            compiled = obj.compile()
        except Exception as exc:
            raise TargetError(f"TARGET `{spec}`: the graph does not compile: {exc}") from exc
        return LoadedTarget(spec=spec, compiled=compiled, runnable=compiled, is_agent=False)
    if callable(obj) and not called and not isinstance(obj, type):
        _check_factory(obj, spec)
        if not factories:
            raise TargetError(
                f"TARGET `{spec}` is a factory (`{_signature(obj)}`), and this TARGET was not named by "
                "you: a factory is code, so it is not called. Name a built graph or agent, or pass "
                "--target."
            )
        if not _takes_no_arguments(obj):
            raise TargetError(
                f"TARGET `{spec}` is a callable that cannot be called without arguments "
                f"(signature {_signature(obj)}); name a graph, an agent, or a zero-argument factory."
            )
        try:
            made = obj()
        except (Exception, SystemExit) as exc:
            raise TargetError(
                f"TARGET `{spec}`: calling the factory failed with {type(exc).__name__}: {exc}"
            ) from exc
        return _resolve(made, spec, called=True)
    if called:
        raise TargetError(
            f"TARGET `{spec}` was called and {_describe(obj, called=True)}, not a CompiledGraph, Graph or "
            "agent."
        )
    from graph_core.agents.adk_flow import FlowAgent

    if isinstance(obj, FlowAgent):
        raise TargetError(
            f"TARGET `{spec}` is a multi-agent flow (`FlowAgent` `{obj.name}`): it runs several agents, each "
            "with a graph of its own, and the inspector draws and records one graph at a time. Name one of "
            "its agents (a ChatModelAgent) as the TARGET instead."
        )
    raise TargetError(
        f"TARGET `{spec}` {_describe(obj, called=False)}, not a CompiledGraph, Graph, agent or a "
        "zero-argument callable returning one."
    )


def _langgraph(obj: Any, spec: str) -> LoadedTarget:
    """A LangGraph `StateGraph` (compiled here) or compiled graph, behind the adapter's runnable."""
    from inspector.adapters.langgraph import as_target

    try:
        runnable = as_target(obj)
    except Exception as exc:
        raise TargetError(f"TARGET `{spec}`: the LangGraph graph does not compile: {exc}") from exc
    return LoadedTarget(spec=spec, compiled=runnable, runnable=runnable, is_agent=False)


def _signature(fn: Any) -> str:
    try:
        return f"{getattr(fn, '__name__', 'callable')}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return "unknown"


def load_target(spec: str, *, factories: bool = True) -> LoadedTarget:
    """Import and resolve `spec`; every failure is a `TargetError` with a one-paragraph message.

    The standard library is refused before anything is imported, and a callable's type before it is
    called (see the module docstring). `factories=False` refuses any factory uncalled: only a graph or
    agent the module built may be used (what the bundled fixtures' rule of `inspector.trust` allows)."""
    source = locate_target(spec)
    module_part, attr = source.spec.rpartition(":")[0], source.attribute
    module = _import_module(source)
    obj: Any = module
    parts = attr.split(".")
    for number, part in enumerate(parts):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            if number:  # the module part resolved; name the object that lacks this attribute
                found = f"{module_part}:{'.'.join(parts[:number])}"
                raise TargetError(
                    f"TARGET `{spec}`: `{found}` has no attribute `{part}` "
                    f"(it {_describe(obj, called=False)})."
                ) from None
            available = sorted(n for n in dir(module) if not n.startswith("_"))
            raise TargetError(
                f"TARGET `{spec}`: `{module_part}` has no attribute `{part}`. Available names: "
                f"{', '.join(available[:20]) or '(none)'}."
            ) from None
        except _LOAD_FAILURES as exc:  # a module `__getattr__` or a property that raises
            raise _lookup_error(spec, f"looking up `{part}`", exc) from exc
    try:
        return _resolve(obj, spec, factories=factories)
    except TargetError:
        raise
    except _LOAD_FAILURES as exc:  # `hasattr` lets all but AttributeError through: `.compiled` raising
        raise _lookup_error(spec, "reading its attributes (such as `compiled`)", exc) from exc


def _lookup_error(spec: str, doing: str, exc: BaseException) -> TargetError:
    return TargetError(f"TARGET `{spec}`: {doing} failed with {type(exc).__name__}: {exc}")
