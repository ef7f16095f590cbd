"""pytest plugin: `pytest --pyargs opconform.suites --backend NAME` (see suites/test_conformance.py)."""


def pytest_addoption(parser):
    group = parser.getgroup("opconform")
    group.addoption("--backend", action="store", default=None, help="opconform backend to certify (e.g. reference, onnxruntime)")
