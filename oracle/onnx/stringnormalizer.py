"""ONNX StringNormalizer: X's elements that match a stop word removed (exactly, or caselessly
under caseless_compare), the rest lowercased, uppercased or kept; [""] (or [[""]]) when none is
left. Case changes run once per distinct string, under case_mapping: full (Python's str methods)
or simple (code point to code point, as towupper/towlower)."""
import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0], dtype=object)
    flat = x.reshape(-1)
    full = policies["case_mapping"] == "full"
    stop = list(attributes.get("stopwords") or [])
    if stop and attributes.get("is_case_sensitive", 0):
        keep = ~np.isin(flat, np.asarray(stop, dtype=object))
    elif stop:
        fold = "upper" if policies["caseless_compare"] == "upper" else "lower"
        keep = ~np.isin(_case(flat, fold, full), _case(np.asarray(stop, dtype=object), fold, full))
    else:
        keep = np.ones(flat.shape, dtype=bool)
    kept = flat[keep]
    action = attributes.get("case_change_action", "NONE")
    if action != "NONE":
        kept = _case(kept, action.lower(), full)
    if kept.size == 0:
        kept = np.array([""], dtype=object)
    return (kept.reshape((1, -1) if x.ndim == 2 else (-1,)),)


def _case(strings: np.ndarray, how: str, full: bool) -> np.ndarray:
    """Each string lower- or uppercased: over the distinct strings, then indexed back."""
    if strings.size == 0:
        return strings
    distinct, back = np.unique(strings.astype(str), return_inverse=True)
    if full:
        changed = np.array([getattr(s, how)() for s in distinct.tolist()], dtype=object)
    else:
        chars = {c for s in distinct.tolist() for c in s}
        table = {ord(c): m for c in chars if len(m := getattr(c, how)()) == 1 and m != c}
        changed = np.array([s.translate(table) for s in distinct.tolist()], dtype=object)
    return changed[back.reshape(-1)]
