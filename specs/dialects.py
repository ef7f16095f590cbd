"""The dialects of the spec library, as data: adding an operator-set domain is one row here.

A dialect is what a spec id starts with (`onnx_ml::TreeEnsembleRegressor-3`) and the folder its
specs, oracle modules and generator hooks live in (specs/onnx_ml/, oracle/onnx_ml/,
generator/hooks/onnx_ml/). Several dialects can share one model format: the ONNX operator-set
domains are each a dialect of format "onnx", so ONNX backends, the ONNX model builder and the ONNX
test-directory writer take all of them, and an operator of ai.onnx.ml keeps its own id even where
its name is also a name of the default domain (ONNX keys operators by domain and name).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Dialect:
    name: str  # spec id prefix and folder name; a Python identifier (it names oracle and hook packages)
    format: str  # the model format its specs run as: "onnx" (ModelProto) or "openvino" (IR)
    domain: str  # the ONNX operator-set domain of its operators ("" the default domain)
    title: str  # how a report names it


DIALECTS: tuple[Dialect, ...] = (
    Dialect("onnx", "onnx", "", "ONNX (ai.onnx)"),
    Dialect("onnx_ml", "onnx", "ai.onnx.ml", "ONNX ML (ai.onnx.ml)"),
    Dialect("onnx_training", "onnx", "ai.onnx.preview.training", "ONNX training (ai.onnx.preview.training)"),
    Dialect("openvino", "openvino", "", "OpenVINO opsets"),
)


@lru_cache(maxsize=None)
def get(name: str) -> Dialect:
    for d in DIALECTS:
        if d.name == name:
            return d
    raise KeyError(f"unknown dialect {name!r}; expected one of {[d.name for d in DIALECTS]}")


def names() -> tuple[str, ...]:
    return tuple(d.name for d in DIALECTS)


def of_format(fmt: str) -> tuple[str, ...]:
    """The dialects whose specs run as models of this format (an ONNX backend's dialects)."""
    return tuple(d.name for d in DIALECTS if d.format == fmt)


def is_onnx(dialect: str) -> bool:
    """Is a spec of this dialect an ONNX operator (any domain), built and stored as ONNX models are?"""
    return get(dialect).format == "onnx"


def onnx_domains() -> tuple[str, ...]:
    """The ONNX operator-set domains the library has a dialect for."""
    return tuple(d.domain for d in DIALECTS if d.format == "onnx")


def for_onnx_domain(domain: str) -> Dialect | None:
    """The dialect of an ONNX node's domain ("ai.onnx" is the default domain), or None."""
    domain = "" if domain == "ai.onnx" else domain
    return next((d for d in DIALECTS if d.format == "onnx" and d.domain == domain), None)
