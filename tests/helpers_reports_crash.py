"""A backend that segfaults, for the pytest plugin's --isolate test. It imports no runtime, so the
worker that replaces a dead one starts fast."""
from __future__ import annotations

import os
import signal

import numpy as np

from opconform.backends.base import Backend


class Segfaulting(Backend):
    """Dies by SIGSEGV inside its run call whenever the first input is not empty; answers |x| for
    an empty one."""

    name = "segfaulting"

    def signature(self, spec, case):
        return case.id

    def prepare(self, spec, case):
        return None

    def run(self, prepared, spec, case):
        if case.inputs and case.inputs[0] is not None and case.inputs[0].size >= 1:
            os.kill(os.getpid(), signal.SIGSEGV)
        return [np.abs(case.inputs[0])]
