"""Machine-readable operator specifications: loading, validation and the relation language.

    >>> from opconform import specs
    >>> v = specs.load("onnx::GatherND-13")
    >>> [p.name for p in v.inputs]
    ['data', 'indices']
"""
from opconform.specs.loader import (
    SCHEMA_PATH, SPEC_ROOT, all_specs, all_versions, check_pattern, load, load_file, load_spec, parse_id, select, selection,
    spec_files,
)
from opconform.specs.expr import normalize_axis
from opconform.specs.relations import RelationStatus, check_all, environment, first_broken, require

__all__ = [
    "SCHEMA_PATH", "SPEC_ROOT", "all_specs", "all_versions", "check_pattern", "load", "load_file", "load_spec", "parse_id",
    "select", "selection", "spec_files", "RelationStatus", "check_all", "environment", "first_broken", "require",
    "normalize_axis",
]
