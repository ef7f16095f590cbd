"""Hook for OpenVINO DetectionOutput-8: priors, predictions and counts that make detections worth judging.

Why a hook: the five inputs share N, the number of priors and of classes through
num_prior_boxes * prior_box_size, num_loc_classes and the variance rows, and free draws leave the
priors inside out and the confidences tied; here the priors are boxes inside the image (in pixels
with a leading column where not normalized), the confidences distinct, the counts small.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft


def _priors(rng: np.random.Generator, count: int, a: dict) -> np.ndarray:
    """[1 or 2, count * size]: boxes, and the variances unless encoded in the target."""
    corner = rng.uniform(0, 0.6, (count, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(0.1, 0.4, (count, 2))], -1)
    if not a.get("normalized", False):
        size = np.array([a.get("input_width", 1), a.get("input_height", 1)] * 2, np.float64)
        boxes = np.concatenate([np.zeros((count, 1)), boxes * size], -1)
    rows = [boxes.reshape(-1)]
    if not a.get("variance_encoded_in_target", False):
        variances = np.tile([0.1, 0.1, 0.2, 0.2], count)
        rows.append(np.concatenate([variances, np.zeros(boxes.size - variances.size)]))
    return np.stack(rows)


def inputs(draw, d: Draft) -> None:
    a = d.attributes
    n, priors, classes = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(2, 3))
    a["keep_top_k"] = [draw(st.sampled_from([-1, 1, 2, 4]))]
    a["top_k"] = draw(st.sampled_from([-1, 1, 2, 4]))
    a["background_label_id"] = draw(st.sampled_from([-1, 0, 1]))
    dt = dtypes.numpy_dtype(d.dtypes[d.port_index("class_preds")])
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    loc_classes = 1 if a.get("share_location", True) else classes
    d.set_input("box_logits", rng.uniform(-0.5, 0.5, (n, priors * loc_classes * 4)).astype(dt))
    total = n * priors * classes
    d.set_input("class_preds", (rng.permutation(total) / total).reshape(n, priors * classes).astype(dt))
    batch = draw(st.sampled_from([1, n]))
    d.set_input("proposals", np.stack([_priors(rng, priors, a) for _ in range(batch)]).astype(dt))
    aux = draw(st.booleans())
    for name, value in (("aux_class_preds", rng.uniform(0, 1, (n, priors * 2))),
                        ("aux_box_preds", rng.uniform(-0.5, 0.5, (n, priors * loc_classes * 4)))):
        d.present[d.port_index(name)] = aux
        d.set_input(name, value.astype(dt) if aux else None)
