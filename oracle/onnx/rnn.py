"""ONNX RNN (every version): the recurrence of oracle/kernels/recurrent.py, with the open choices of
specs/onnx/RNN.yaml as policies."""
from __future__ import annotations

from opconform.oracle.kernels import recurrent

run = recurrent.operator_run("RNN")
policies_in_play = recurrent.policies_in_play
