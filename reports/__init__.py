"""Reports: HTML, JUnit XML, JSON summary, baselines and the CI gate."""
