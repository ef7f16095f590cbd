"""The spec library as the generic tests see it: every file that loads (a file that does not
load is reported once, by test_oracle_examples.test_spec_file_validates)."""
from __future__ import annotations

from opconform import specs
from opconform.model import Spec, SpecError


def loadable_specs(dialect: str | None = None) -> list[Spec]:
    out = []
    for path in specs.spec_files():
        if dialect is not None and path.parent.name != dialect:
            continue
        try:
            out.append(specs.load_file(path))
        except SpecError:
            continue
    return out
