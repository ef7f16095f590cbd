"""Shared test settings. Hypothesis runs derandomized here, so the project's own tests are
repeatable; the generator's own seeds are tested separately."""
import os

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
