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
from opconform.generator.exercised import exercised as exercised_values, same as same_value
from opconform.generator.manifest import MANIFEST, read as read_manifest
from opconform.generator.factors import Factor, constraints, example_outputs, factors as spec_factors
from opconform.generator.probe_rows import (
    assignment as probe_assignment, draw as draw_probes, preference as factor_preference, rows as rows_to_probe,
    seeds as probe_seeds,
)
from opconform.generator.profiles import PROFILES, Profile, get as size_profile
from opconform.generator.sampling import generate, generate_rows, has_strategy, restricted, spec_rows
from opconform.generator.strategies import cases, drafts, error_relations, invalid_drafts
from opconform.generator.stress import (
    draw as stress_draw, elements as stress_elements, nbytes as stress_nbytes, sizes as stress_sizes,
)
from opconform.generator.tuple_coverage import tuple_coverage as factor_tuple_coverage
from opconform.generator.variants import variants as case_variants
from opconform.generator.values import edge_values, from_elements

__all__ = [
    "cases", "generate", "has_strategy", "drafts", "invalid_drafts", "PROFILES", "Profile",
    "error_relations", "generate_rows", "restricted", "spec_rows",
    "Factor", "constraints", "spec_factors", "exercised_values", "same_value", "factor_tuple_coverage",
    "draw_probes", "factor_preference", "probe_assignment", "probe_seeds", "rows_to_probe",
    "edge_values", "from_elements", "size_profile", "output_slots", "case_variants", "example_outputs",
    "stress_draw", "stress_elements", "stress_nbytes", "stress_sizes", "read_manifest", "MANIFEST", "ONNX_TESTDIR_FORMAT",
    "read_value_file",
]


def __getattr__(name: str):
    """output_slots and ONNX_TESTDIR_FORMAT: from the ONNX model builder and writer, which import onnx;
    loaded when first asked for, so that importing the generator does not import onnx."""
    if name == "output_slots":
        from opconform.generator.onnx_model import output_slots

        return output_slots
    if name == "read_value_file":  # a sequence, optional or map .pb file (generator/value_protos.py)
        from opconform.generator.value_protos import read

        return read
    if name == "ONNX_TESTDIR_FORMAT":
        from opconform.generator.writers.onnx_testdir import FORMAT

        return FORMAT
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
