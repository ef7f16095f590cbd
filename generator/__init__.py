"""Generator: Hypothesis strategies of cases derived from specs, and test-data file writers.

    >>> from opconform import specs, oracle
    >>> from opconform.generator import cases, generate, has_strategy
    >>> v = specs.load("onnx::GatherND-13")
    >>> strategy = cases(v, kind="invalid", expect=oracle.expectation)   # shrinks; use in @given
    >>> batch = generate(v, 100, seed=7, expect=oracle.expectation)      # same seed, same cases

The generator never imports the oracle: the expectation function is passed in (`expect=`).
Operator hooks and family strategies: docs/generator-hooks.md.

What later stages use of the generator is exported here, and only this (tests/test_layering.py
holds suites/ to it): drawing cases (above; covering-array rows: spec_rows, generate_rows), the
factors of a spec version and what a case exercises of them (spec_factors, constraints,
exercised_values, same_value, factor_tuple_coverage), the probe rows a backend is asked first
(rows_to_probe, draw_probes, probe_seeds, probe_assignment, factor_preference), element values
(edge_values, from_elements), size profiles (PROFILES, Profile, size_profile), value variants of
a case (case_variants: more cases sharing its model), the outputs a worked example asks for
(example_outputs: a spec's output sets), the output slots of a case's model (output_slots), and the
files `opconform generate` wrote (read_manifest, MANIFEST, ONNX_TESTDIR_FORMAT). A name that is also a submodule's would hide that submodule,
hence spec_factors, exercised_values, factor_tuple_coverage rather than the functions' own names.
"""
__all__ = [
    "cases", "generate", "has_strategy", "drafts", "invalid_drafts", "PROFILES", "Profile",
    "error_relations", "generate_rows", "restricted", "spec_rows",
    "Factor", "constraints", "spec_factors", "exercised_values", "same_value", "factor_tuple_coverage",
    "draw_probes", "factor_preference", "probe_assignment", "probe_seeds", "rows_to_probe",
    "edge_values", "from_elements", "size_profile", "output_slots", "case_variants", "example_outputs",
    "stress_draw", "stress_elements", "stress_nbytes", "stress_sizes", "read_manifest", "MANIFEST", "ONNX_TESTDIR_FORMAT",
    "read_value_file",
]


# each export's module and name there: loaded when first asked for, so that a run whose cases are
# all in the case cache imports no Hypothesis (some 0.2 s of its start-up) and no onnx through here
_EXPORTS = {
    "exercised_values": ("exercised", "exercised"), "same_value": ("exercised", "same"),
    "MANIFEST": ("manifest", "MANIFEST"), "read_manifest": ("manifest", "read"),
    "Factor": ("factors", "Factor"), "constraints": ("factors", "constraints"),
    "example_outputs": ("factors", "example_outputs"), "spec_factors": ("factors", "factors"),
    "probe_assignment": ("probe_rows", "assignment"), "draw_probes": ("probe_rows", "draw"),
    "factor_preference": ("probe_rows", "preference"), "rows_to_probe": ("probe_rows", "rows"),
    "probe_seeds": ("probe_rows", "seeds"),
    "PROFILES": ("profiles", "PROFILES"), "Profile": ("profiles", "Profile"), "size_profile": ("profiles", "get"),
    "generate": ("sampling", "generate"), "generate_rows": ("sampling", "generate_rows"),
    "has_strategy": ("sampling", "has_strategy"), "restricted": ("sampling", "restricted"),
    "spec_rows": ("sampling", "spec_rows"),
    "cases": ("strategies", "cases"), "drafts": ("strategies", "drafts"),
    "error_relations": ("strategies", "error_relations"), "invalid_drafts": ("strategies", "invalid_drafts"),
    "stress_draw": ("stress", "draw"), "stress_elements": ("stress", "elements"), "stress_nbytes": ("stress", "nbytes"),
    "stress_sizes": ("stress", "sizes"),
    "factor_tuple_coverage": ("tuple_coverage", "tuple_coverage"),
    "case_variants": ("variants", "variants"),
    "edge_values": ("values", "edge_values"), "from_elements": ("values", "from_elements"),
    "output_slots": ("onnx_model", "output_slots"),
    "read_value_file": ("value_protos", "read"),  # a sequence, optional or map .pb file
    "ONNX_TESTDIR_FORMAT": ("writers.onnx_testdir", "FORMAT"),
}


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attr = _EXPORTS[name]
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value  # asked once: a plain attribute from then on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
