"""The seeded provider's fixed-size byte strings (every drawn array's values, values.codes) are
Hypothesis's own byte for byte: drawn at once instead of one byte per step of `many`, so the same
seed gives the same cases as before the speed-up."""
from __future__ import annotations

import random

from hypothesis import strategies as st

from opconform.generator import sampling
from opconform.suites import plan


def _draws(fast: bool, source: str) -> list:
    strategy = st.tuples(st.binary(min_size=7, max_size=7), st.integers(0, 9), st.binary(min_size=300, max_size=300),
                         st.binary(min_size=0, max_size=4), st.binary(min_size=1, max_size=1))
    method = sampling._SeededProvider.__dict__["draw_bytes"]
    try:
        if not fast:
            del sampling._SeededProvider.draw_bytes
        return [sampling.draw_one(strategy, f"{source}:{k}") for k in range(40)]
    finally:
        sampling._SeededProvider.draw_bytes = method


def test_fixed_size_bytes_are_hypothesis_own():
    assert _draws(True, "bytes") == _draws(False, "bytes")


def test_one_byte_is_the_top_of_one_twister_word():
    a, b = random.Random("w"), random.Random("w")
    words = a.getrandbits(32 * 5).to_bytes(20, "little")
    assert bytes(words[4 * i + 3] for i in range(5)) == b"".join(b.randbytes(1) for _ in range(5))


def test_generated_cases_are_the_same_with_and_without_the_fast_bytes():
    method = sampling._SeededProvider.__dict__["draw_bytes"]
    fast = [c.id for c in plan._generate("onnx::CausalConvWithState-27", "ci", 3).cases]
    try:
        del sampling._SeededProvider.draw_bytes
        slow = [c.id for c in plan._generate("onnx::CausalConvWithState-27", "ci", 3).cases]
    finally:
        sampling._SeededProvider.draw_bytes = method
    assert fast == slow and len(fast) > 50
