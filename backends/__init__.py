"""Backends: adapters that run a case on a real implementation.

    >>> from opconform import backends
    >>> b = backends.get("onnxruntime")        # or "package.module:Class", or an entry point name
    >>> b.accepts(spec)                        # None, or why the backend does not take this spec
    >>> b.execute(spec, case)                  # Outcome, in-process (the runner isolates it)
    >>> backends.get("onnxruntime[CUDAExecutionProvider]")  # a built-in backend with its option

A built-in backend that takes an option (onnxruntime: its execution provider) is named with the
option in brackets; that whole name is the backend's identity in results, reports and caches.

Built-in names map to modules here; third-party backends plug in through the entry-point group
`opconform.backends` (name = "package.module:Class") or `--backend package.module:Class`.
"""
from __future__ import annotations

import importlib
from importlib import metadata

from opconform.backends.base import Backend, BackendMissing

__all__ = ["Backend", "BackendMissing", "BUILTIN", "get", "names", "with_option"]

# name -> (module:Class, pip extra that installs its library or None)
BUILTIN: dict[str, tuple[str, str | None]] = {
    "reference": ("opconform.backends.reference:ReferenceBackend", None),
    "onnxruntime": ("opconform.backends.onnxruntime:OnnxRuntimeBackend", "onnxruntime"),
    "openvino": ("opconform.backends.openvino:OpenVinoOnnxBackend", "openvino"),
    "openvino-native": ("opconform.backends.openvino_native:OpenVinoNativeBackend", "openvino"),
    "tract": ("opconform.backends.tract:TractBackend", "tract"),
    "iree": ("opconform.backends.iree:IreeBackend", "iree"),
    "tvm": ("opconform.backends.tvm:TvmBackend", "tvm"),
    "torch": ("opconform.backends.torch:TorchBackend", "torch"),
}

ENTRY_POINT_GROUP = "opconform.backends"


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def names() -> list[str]:
    """Every backend name this installation knows (installed or not)."""
    return list(BUILTIN) + sorted(n for n in _entry_points() if n not in BUILTIN)


def _load_class(path: str, what: str) -> type:
    module_name, _, class_name = path.partition(":")
    if not module_name or not class_name:
        raise BackendMissing(f"backend {what!r}: expected a name ({', '.join(names())}) or package.module:Class")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and module_name.startswith(e.name):
            raise BackendMissing(f"backend {what!r}: cannot import module {module_name!r} ({e.name} not found)") from None
        raise  # the module exists but a library it needs does not: get() names the extra
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or not issubclass(cls, Backend):
        raise BackendMissing(f"backend {what!r}: {module_name} has no Backend subclass named {class_name!r}")
    return cls


def with_option(name: str, option: str | None) -> str:
    """The name of backend `name` run with an option: onnxruntime + CUDAExecutionProvider ->
    onnxruntime[CUDAExecutionProvider]."""
    if not option:
        return name
    if name not in BUILTIN or "[" in name:
        raise BackendMissing(f"backend {name!r} takes no option ({option!r}); only a built-in backend name does")
    return f"{name}[{option}]"


def _split_option(name: str) -> tuple[str, str | None]:
    """'onnxruntime[CUDAExecutionProvider]' -> ('onnxruntime', 'CUDAExecutionProvider')."""
    base, bracket, rest = name.partition("[")
    if bracket and rest.endswith("]") and base in BUILTIN and rest[:-1]:
        return base, rest[:-1]
    return name, None


def get(name_or_path: str) -> Backend:
    """A ready backend instance; BackendMissing (one line, naming the extra to install) if it cannot load."""
    base, option = _split_option(name_or_path)
    if option is not None:
        path, extra = BUILTIN[base]
    elif name_or_path in BUILTIN:
        path, extra = BUILTIN[name_or_path]
    elif ":" in name_or_path:
        path, extra = name_or_path, None
    else:
        eps = _entry_points()
        if name_or_path not in eps:
            raise BackendMissing(f"unknown backend {name_or_path!r}; expected one of {', '.join(names())} or package.module:Class")
        path, extra = eps[name_or_path], None
    try:
        cls = _load_class(path, name_or_path)
        if option is not None and cls.option is None:
            raise BackendMissing(f"backend {base!r} takes no option in brackets ({name_or_path!r})")
        backend = cls() if option is None else cls(option)
    except ImportError as e:
        hint = f"; install it with: pip install 'opconform[{extra}]'" if extra else ""
        raise BackendMissing(f"backend {name_or_path!r} is not installed ({e.name or e} missing){hint}") from None
    backend.ref = name_or_path
    return backend
