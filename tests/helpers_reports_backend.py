"""Deliberately wrong backends for the pytest-plugin tests."""
from __future__ import annotations

import os
import signal

import numpy as np

from opconform.backends.base import Backend
from opconform.backends.onnxruntime import OnnxRuntimeBackend


class RotatedOutputs(OnnxRuntimeBackend):
    """onnxruntime with every output of two or more elements rotated by one place: any case with
    two distinct output elements mismatches."""

    name = "rotated"

    def infer(self, handle, feeds, output_names):
        outs = super().infer(handle, feeds, output_names)
        return [np.roll(o, 1) if isinstance(o, np.ndarray) and o.size >= 2 else o for o in outs]


class Segfaulting(Backend):
    """Dies by SIGSEGV inside its run call whenever the first input holds two or more elements;
    answers nothing useful otherwise (so its only failures are crashes or mismatches)."""

    name = "segfaulting"

    def signature(self, spec, case):
        return case.id

    def prepare(self, spec, case):
        return None

    def run(self, prepared, spec, case):
        if case.inputs and case.inputs[0] is not None and case.inputs[0].size >= 2:
            os.kill(os.getpid(), signal.SIGSEGV)
        return [np.abs(case.inputs[0])]
