"""Maps the top-level stage folders onto subpackages of the one import package, `opconform`.

pyproject.toml cannot express "folder X is package opconform.X, with all its subpackages"
without listing every subpackage by hand, so the list is computed here.
"""
from setuptools import find_packages, setup

STAGES = ("specs", "generator", "oracle", "backends", "suites", "reports")

package_dir = {"opconform": "opconform"}
packages = ["opconform"] + [f"opconform.{p}" for p in find_packages("opconform")]
for stage in STAGES:
    package_dir[f"opconform.{stage}"] = stage
    packages += [f"opconform.{stage}"] + [f"opconform.{stage}.{p}" for p in find_packages(stage)]

setup(packages=packages, package_dir=package_dir)
