"""OpenVINO ExperimentalDetectronTopKROIs-6: the max_rois ROIs of highest probability, in
descending order of probability. The order of equal probabilities is undefined: where equal
probabilities among the selected, or straddling the last place, change the output the case is
undefined (oracle-side relation `ties_unordered`), as for TopK without stable."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    rois, probs = np.asarray(inputs[0]), wide(np.asarray(inputs[1]))
    k = int(attributes.get("max_rois", 0))
    order = np.argsort(-probs, kind="stable")
    ranked = probs[order]
    chosen = order[:k]
    # equal neighbours in the ranking within the first k + 1 places whose rows differ decide nothing
    for j in range(min(k, len(order) - 1)):
        if ranked[j] == ranked[j + 1] and not np.array_equal(wide(rois[order[j]]), wide(rois[order[j + 1]]), equal_nan=True):
            raise RelationBroken(spec.id, "ties_unordered", "undefined",
                                 "Order of sorted ROIs with equal probabilities is undefined")
    return (rois[chosen],)
