"""Resolve a command-line TARGET (`package.module:attr` or `path/to/file.py:attr`) to something runnable.

A TARGET names a `CompiledGraph`, a `Graph` (compiled here), an agent (anything with `.compiled`), a
LangGraph `StateGraph` or compiled graph (run through `inspector.adapters.langgraph`), or a zero-argument
callable returning one of those. Duck typing keeps this module free of engine imports
beyond what the target itself pulls in.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.adapters.detect import is_langgraph
from inspector.errors import TargetError

__all__ = ["LoadedTarget", "load_target"]

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


def _import_module(module_part: str, spec: str) -> Any:
    looks_like_file = module_part.endswith(".py") or "/" in module_part or "\\" in module_part
    if looks_like_file:
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
        name = f"_inspector_target_{abs(hash(path.resolve()))}"
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise TargetError(f"TARGET `{spec}`: `{module_part}` cannot be loaded as a Python file.")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        parent = str(path.resolve().parent)
        if parent not in sys.path:
            sys.path.insert(0, parent)
        try:
            module_spec.loader.exec_module(module)
        except _LOAD_FAILURES as exc:  # a script's sys.exit() or argparse is no exit of ours
            raise TargetError(
                f"TARGET `{spec}`: running `{module_part}` failed with {type(exc).__name__}: {exc}"
            ) from exc
        return module
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
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


def _resolve(obj: Any, spec: str, *, called: bool = False) -> LoadedTarget:
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


def load_target(spec: str) -> LoadedTarget:
    """Import and resolve `spec`; every failure is a `TargetError` with a one-paragraph message."""
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise TargetError(
            f"TARGET `{spec}` must look like `package.module:attribute` or `path/to/file.py:attribute` "
            "(a colon separates the module from the attribute)."
        )
    module = _import_module(module_part, spec)
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
        return _resolve(obj, spec)
    except TargetError:
        raise
    except _LOAD_FAILURES as exc:  # `hasattr` lets all but AttributeError through: `.compiled` raising
        raise _lookup_error(spec, "reading its attributes (such as `compiled`)", exc) from exc


def _lookup_error(spec: str, doing: str, exc: BaseException) -> TargetError:
    return TargetError(f"TARGET `{spec}`: {doing} failed with {type(exc).__name__}: {exc}")
