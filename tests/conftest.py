"""Shared test settings. Hypothesis runs derandomized here, so the project's own tests are
repeatable; the generator's own seeds are tested separately."""
import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

settings.register_profile(
    "opconform-tests",
    derandomize=True,
    deadline=None,
    max_examples=int(os.environ.get("OPCONFORM_TEST_EXAMPLES", "60")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile("opconform-tests")

# compiled models (backends/compile_cache.py) kept for this test process only: the tests compile for
# real, and a compiler death a test stages is never remembered by a user's runs (or another test's)
os.environ["OPCONFORM_COMPILE_CACHE"] = tempfile.mkdtemp(prefix="opconform-compiled-")
atexit.register(shutil.rmtree, os.environ["OPCONFORM_COMPILE_CACHE"], True)


def _import_every_opconform_module() -> None:
    """Hypothesis mixes constants harvested from every loaded local module into its draws, so a
    @given test would draw differently depending on which modules earlier tests happened to
    import (xdist worker, -k selection). Importing all of opconform up front makes the pool, and
    so every derandomized test, the same whatever runs before it."""
    import importlib
    import pkgutil

    import opconform

    for stage in ("specs", "generator", "oracle", "backends", "suites", "reports", "commands"):
        pkg = importlib.import_module(f"opconform.{stage}")
        for info in pkgutil.walk_packages(pkg.__path__, f"opconform.{stage}."):
            importlib.import_module(info.name)
    for name in ("model", "dtypes", "tensors", "cli"):
        importlib.import_module(f"opconform.{name}")
    assert opconform.__version__


_import_every_opconform_module()
