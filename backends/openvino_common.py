"""What both OpenVINO backends share: one Core, CPU compilation, running, reading outputs back,
and which OpenVINO failures mean "not implemented"."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from opconform import dtypes
from opconform.backends.base import BuildFailed, phase, short_message
from opconform.backends.compiled import CompiledModelBackend, Prepared
from opconform.model import Case, SpecVersion

# substrings (lower-case) of OpenVINO messages that say it does not implement something
_UNSUPPORTED = ("not supported", "unsupported", "not implemented", "doesn't support", "does not support",
                "wasn't fully converted")
# ... and those that say its Python binding has no mapping for an element type, whenever they come
_BINDING_TYPE = ("unsupported data type", "dtype_map.end()")
# element types whose NumPy (ml_dtypes) arrays the binding misreads: passed as raw bits instead
_RAW_BITS = ("bfloat16", "float8e4m3fn", "float8e5m2", "float8e8m0")
# two elements to a byte, the first in the low nibble: the binding takes and gives such tensors as
# their packed bytes (a NumPy int4 array, one byte per element, is refused: "Failed to set tensor
# ... precision: i8, since the model input tensor precision is: i4" was the backend's error)
_PACKED = ("int4", "uint4", "float4e2m1")


class OpenVinoRuntime:
    """An ov.Core with the settings the runner wants: CPU, one thread per worker."""

    def __init__(self) -> None:
        import openvino

        self.ov = openvino
        self.core = openvino.Core()
        # one thread per worker: the runner already runs --jobs workers side by side
        self.config = {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1}
        # compiled models kept between runs (compile_keyed); not OpenVINO's own CACHE_DIR: its key
        # leaves constants' values out (EyeLike with k=0 and k=1 shared one entry: wrong answers)
        self.cache = model_cache_dir() if reuse_on() else None
        self._salt = json.dumps([openvino.get_version(), self.config], sort_keys=True).encode()

    def version(self) -> str:
        return self.ov.get_version()

    def compile(self, model: Any) -> Any:
        return self.core.compile_model(model, "CPU", self.config)

    def compile_keyed(self, key: bytes, make: Callable[[], Any]) -> Any:
        """The compiled model of make()'s model, imported where one with the same key (the model's
        own bytes) was compiled before by this OpenVINO with these settings: a warm import takes
        about a sixth of a compile's CPU time (4 ms against 27 ms for a one-node model)."""
        if self.cache is None:
            return self.compile(make())
        path = self.cache / (hashlib.sha256(self._salt + key).hexdigest() + ".blob")
        if path.exists():
            try:
                return self.core.import_model(path.read_bytes(), "CPU", self.config)
            except RuntimeError:
                pass  # an entry this OpenVINO cannot read: compiled afresh and replaced
        compiled = self.compile(make())
        try:
            blob = compiled.export_model().getvalue()  # a BytesIO
            self.cache.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            partial.write_bytes(blob)
            os.replace(partial, path)  # whole or absent, whichever worker writes it
        except (OSError, RuntimeError):
            pass  # not kept: the next run compiles it again
        return compiled

    def infer(self, compiled: Any, arrays: Sequence[np.ndarray], unread: bool = False) -> list[np.ndarray]:
        """The outputs as arrays; unread: the request's tensors, left as OpenVINO made them (a control run)."""
        with phase("harness"):
            tensors = [self._tensor(a) for a in arrays]
        if any(self._named(port.get_element_type(), _PACKED) for port in compiled.outputs):
            # a packed output's shape is the tensor's, not its bytes' array: read it from the request
            request = compiled.create_infer_request()
            request.infer(tensors)
            got = [(request.get_tensor(port), port.get_element_type()) for port in compiled.outputs]
        else:
            result = compiled(tensors)
            # reading the outputs and their declared types is OpenVINO's code; reinterpreting them is ours
            got = [(result[port], port.get_element_type()) for port in compiled.outputs]
        if unread:
            return [value for value, _ in got]
        with phase("harness"):
            return [self._numpy(declared, value) for value, declared in got]

    def _tensor(self, a: np.ndarray) -> Any:
        """What the binding reads right: strings as NumPy str arrays, and bfloat16/float8 as
        tensors of that OpenVINO type filled with the array's bits (it reads them as float16/uint8)."""
        if a.dtype == object:
            return np.asarray(a, dtype=str)
        name = dtypes.name_of(a.dtype)
        if name not in _RAW_BITS + _PACKED:
            return a
        tensor = self.ov.Tensor(getattr(self.ov.Type, dtypes.get(name).openvino), self.ov.Shape(list(a.shape)))
        if name in _PACKED:
            tensor.data.reshape(-1).view(np.uint8)[:] = pack_nibbles(a)
            return tensor
        # flat first: NumPy changes the element size of a 0-d array only by way of a 1-d view
        tensor.data.reshape(-1).view(np.uint8)[:] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        return tensor

    def _named(self, element_type: Any, names: Sequence[str]) -> str | None:
        """Which of `names` (opconform's element type names) the OpenVINO element type is, if any."""
        return next((t for t in names if element_type == getattr(self.ov.Type, dtypes.get(t).openvino)), None)

    def _numpy(self, element_type: Any, value: Any) -> np.ndarray:
        packed = self._named(element_type, _PACKED)
        if packed and isinstance(value, self.ov.Tensor):
            return unpack_nibbles(np.asarray(value.data), tuple(value.shape), packed)
        a = np.asarray(value)
        # the binding hands bfloat16 back as float16 and float8 as uint8 (raw bits): reinterpret them
        declared = self._named(element_type, _RAW_BITS)
        if declared and a.dtype != dtypes.numpy_dtype(declared) and a.dtype.itemsize == dtypes.numpy_dtype(declared).itemsize:
            a = a.view(dtypes.numpy_dtype(declared))
        return a


def pack_nibbles(a: np.ndarray) -> np.ndarray:
    """A 4-bit array's elements two to a byte, the first in the low nibble (OpenVINO's u4/i4/f4e2m1)."""
    nibbles = np.ascontiguousarray(a).reshape(-1).view(np.uint8) & 0x0F
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)


def unpack_nibbles(raw: np.ndarray, shape: tuple[int, ...], name: str) -> np.ndarray:
    """pack_nibbles undone: `shape`'s elements of the 4-bit type `name` from their packed bytes."""
    b = np.ascontiguousarray(raw).reshape(-1).view(np.uint8)
    nibbles = np.stack([b & 0x0F, b >> 4], axis=-1).reshape(-1)[:int(np.prod(shape, dtype=np.int64))]
    target = dtypes.numpy_dtype(name)
    if name == "float4e2m1":  # the nibble is the value's bits
        return nibbles.view(target).reshape(shape)
    if name == "int4":  # two's complement in four bits
        nibbles = nibbles.astype(np.int8) - np.where(nibbles >= 8, 16, 0).astype(np.int8)
    return nibbles.astype(target).reshape(shape)


def classify(exc: BaseException, stage: str) -> str:
    text = str(exc).lower()
    if any(s in text for s in _BINDING_TYPE) or (stage == "build" and any(s in text for s in _UNSUPPORTED)):
        return "unsupported"
    return "error"


def needs_static(exc: BaseException) -> bool:
    """The CPU plugin refuses some operators with dynamic rank or shapes; static shapes may work.
    Some nodes print a dynamic dimension as size_t's -1 instead (ROIAlign: "has invalid shape on 1st
    input: [18446744073709551615,18446744073709551615]")."""
    text = str(exc).lower()
    return "dynamic" in text or "18446744073709551615" in text


# OPCONFORM_OPENVINO_REUSE=0: every model the CPU plugin refuses dynamic is compiled per whole input
# shape, each signature tries the dynamic model first, and no compiled model is kept between runs
# (as before issue 18; for comparisons)
REUSE_ENV = "OPCONFORM_OPENVINO_REUSE"
CACHE_ENV = "OPCONFORM_OPENVINO_CACHE"
DYNAMIC, INTEGERS, ALL = "dynamic", "integers", "all"


def reuse_on() -> bool:
    return os.environ.get(REUSE_ENV, "1") != "0"


def model_cache_dir() -> Path:
    """Where OpenVINO keeps compiled models between runs: $OPCONFORM_OPENVINO_CACHE, else beside
    opconform's case cache."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return Path(os.environ.get("OPCONFORM_CACHE") or Path.home() / ".cache" / "opconform") / "openvino-models"


class FewerCompiles(CompiledModelBackend):
    """Compiles for OpenVINO's CPU plugin, which costs a tenth of a second each, kept few.

    Where the plugin refuses the dynamic model, it is mostly for an output whose rank a shape-
    setting input decides (Reshape's shape, Squeeze's axes, TopK's K, GatherND's indices): fixing
    the shapes of the integer inputs only, the other inputs stay dynamic, and one model serves every
    shape of those (the "integers" tier); where that is refused as well, every input's shape is
    fixed ("all", as CompiledModelBackend does). The tier an operator and its attributes needed is
    remembered, so their next signatures skip the refused compiles (a refused compile costs nearly
    as much as one that succeeds)."""

    def __init__(self) -> None:
        super().__init__()
        self.reuse = reuse_on()
        self._tiers: dict[tuple[str, str], str] = {}  # (spec id, attributes) -> the tier that compiled

    def static_shapes(self, prepared: Prepared, feeds: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        # an empty integer input (Expand's shape []) leaves the output's shape to the dynamic inputs,
        # which the CPU plugin gets wrong (Expand-13 answered [0, 0, 0] for [2, 2, 2]; static, it
        # answers the shape right): such a case runs on the model with every shape fixed, as before
        if prepared.fixed != INTEGERS or any(_integer(a) and a.size == 0 for a in feeds.values()):
            return super().static_shapes(prepared, feeds)
        return {n: a.shape for n, a in feeds.items() if _integer(a)}

    def _static_handle(self, prepared: Prepared, feeds: dict[str, np.ndarray]) -> Any:
        try:
            return super()._static_handle(prepared, feeds)
        except BuildFailed as e:
            if prepared.fixed != INTEGERS or not self.needs_static(e.cause):
                raise
        # the plugin refuses these integer shapes with the others dynamic: this case's model fixes all
        prepared.fixed = ALL
        try:
            return super()._static_handle(prepared, feeds)
        finally:
            prepared.fixed = INTEGERS

    def prepare(self, spec: SpecVersion, case: Case) -> Prepared:
        if not self.reuse:
            return super().prepare(spec, case)
        prepared = self._build(spec, case)
        key = (spec.id, json.dumps(dict(case.attributes), sort_keys=True, default=repr))
        first: BaseException | None = None  # the dynamic model's refusal, where it was tried
        if self._tiers.get(key, DYNAMIC) == DYNAMIC:
            try:
                prepared.handle = self.load(prepared.model)
                return prepared
            except Exception as e:
                if not self.needs_static(e):
                    raise
                first = e
        with phase("harness"):
            feeds = prepared.io.feeds(case)
        narrower = any(_integer(a) for a in feeds.values()) and not all(_integer(a) for a in feeds.values())
        for tier in ((INTEGERS, ALL) if narrower and self._tiers.get(key) != ALL else (ALL,)):
            prepared.fixed = tier
            prepared.per_shape.clear()
            try:
                super()._static_handle(prepared, feeds)  # without the fallback above: this tests the tier
            except BuildFailed as again:
                if tier == INTEGERS and self.needs_static(again.cause):
                    continue  # still refused for dynamic dimensions: fix them all
                if first is None:  # refused for another reason, the dynamic model untried: as before
                    return super().prepare(spec, case)
                # failing as the dynamic model did, it was never about the dimensions: the whole
                # signature fails at once (CompiledModelBackend.prepare); otherwise each shape's own
                if first is not None and short_message(again.cause) == short_message(first):
                    raise again.cause from None
                return prepared
            self._tiers[key] = tier
            return prepared
        return prepared


def _integer(a: Any) -> bool:
    """An input whose values may set an output's rank or sizes: an integer tensor."""
    return isinstance(a, np.ndarray) and a.dtype.kind in "iu"
