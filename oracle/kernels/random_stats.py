"""Statistical judging of random outputs (`compare: judged`): tests whose false-alarm rate is at
most ALPHA per case, so that a backend drawing from the stated distribution fails a case with
probability at most ALPHA, whatever the sample size.

Each test returns '' when the sample is consistent with the distribution, else why not in one line.

- counts (Bernoulli, Dropout's kept share, Multinomial's classes): exact two-sided binomial or
  Poisson-binomial tests, one per group of trials, the groups sharing ALPHA (Bonferroni);
- continuous distributions (RandomNormal, RandomUniform): a Kolmogorov-Smirnov statistic held to the
  Dvoretzky-Kiefer-Wolfowitz bound with Massart's constant, P(sup |F_n - F| > e) <= 2 exp(-2 n e^2)
  for every n (P. Massart, "The tight constant in the Dvoretzky-Kiefer-Wolfowitz inequality", Ann.
  Probab. 18 (1990) 1269-1283): no table, no asymptotics. Each sample is widened by the rounding the
  output type allows (the value before rounding lies within it), which only lowers the statistic.
"""
from __future__ import annotations

from typing import Callable

import ml_dtypes
import numpy as np

ALPHA = 1e-6  # false-alarm rate of every judgement, per case


def binomial(k: int, n: int, p: float, alpha: float = ALPHA) -> str:
    """'' unless k successes of n trials at probability p is so far from n * p that a two-sided
    binomial test at `alpha` rejects it (p of 0 or 1: k must be 0 or n)."""
    if n == 0:
        return ""
    if p <= 0.0 or p >= 1.0:
        want = 0 if p <= 0.0 else n
        return "" if k == want else f"{k} of {n} with probability {p:g}: expected exactly {want}"
    ks = np.arange(n + 1)
    # log C(n, k) from cumulative sums of logs: every term at once
    logs = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])
    log_pmf = logs[n] - logs[ks] - logs[n - ks] + ks * np.log(p) + (n - ks) * np.log1p(-p)
    return _tails(np.exp(log_pmf), k, n, n * p, alpha, f"probability {p:g}", "binomial")


def poisson_binomial(k: int, probabilities: np.ndarray, alpha: float = ALPHA) -> str:
    """'' unless k successes of independent trials with these probabilities is rejected by a two-sided
    test at `alpha` on the exact distribution of the count (one convolution per trial)."""
    p = np.asarray(probabilities, dtype=np.float64).reshape(-1)
    if p.size and np.all(p == p[0]):
        return binomial(k, p.size, float(p[0]), alpha)
    pmf = np.zeros(p.size + 1)
    pmf[0] = 1.0
    for j, q in enumerate(p):
        pmf[1 : j + 2] = pmf[1 : j + 2] * (1 - q) + pmf[: j + 1] * q
        pmf[0] *= 1 - q
    return _tails(pmf, k, p.size, float(p.sum()), alpha, "the trials' probabilities", "Poisson-binomial")


def grouped_counts(hits: np.ndarray, probabilities: np.ndarray, alpha: float = ALPHA) -> str:
    """One binomial test per distinct probability (the hits of the trials that share it), the groups
    sharing `alpha`: a count per group also catches probabilities swapped between trials."""
    hits, p = np.asarray(hits, dtype=bool).reshape(-1), np.asarray(probabilities, dtype=np.float64).reshape(-1)
    groups = np.unique(p)
    for q in groups:
        at = p == q
        why = binomial(int(hits[at].sum()), int(at.sum()), float(q), alpha / len(groups))
        if why:
            return why
    return ""


def _tails(pmf: np.ndarray, k: int, n: int, mean: float, alpha: float, what: str, test: str) -> str:
    low, high = pmf[: k + 1].sum(), pmf[k:].sum()
    if min(low, high) < alpha / 2:
        side = "few" if low < high else "many"
        return (f"{k} of {n}: too {side} for {what} (expected about {mean:.4g}; two-sided {test} test, "
                f"false-alarm rate {alpha:g}; P = {2 * min(low, high):.2g})")
    return ""


def rounding_slack(x: np.ndarray, dtype: np.dtype, magnitude: float) -> np.ndarray:
    """How far each sample of `dtype` may lie from the value it was drawn as: one rounding of the
    sample and of a computation on parameters of about `magnitude` (mean + scale * z, low + (high -
    low) * u computed in the type), plus the type's smallest subnormal."""
    info = ml_dtypes.finfo(dtype)  # numpy's finfo extended to bfloat16
    eps, tiny = float(info.eps), float(info.smallest_subnormal)
    return eps * (np.abs(np.asarray(x, dtype=np.float64)) + abs(magnitude)) + tiny


def distribution(samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray], slack: np.ndarray,
                 alpha: float = ALPHA, what: str = "the distribution") -> str:
    """'' unless the samples' empirical distribution is further from `cdf` (vectorized) than the DKW
    bound allows at `alpha`; each sample may have been rounded by up to its `slack`."""
    x = np.asarray(samples, dtype=np.float64).reshape(-1)
    n = x.size
    if n == 0:
        return ""
    order = np.argsort(x, kind="stable")
    x, h = x[order], np.broadcast_to(np.asarray(slack, dtype=np.float64), samples.shape).reshape(-1)[order]
    i = np.arange(1, n + 1)
    above = i / n - cdf(x + h)  # the empirical CDF past the widest value the sample may stand for
    below = cdf(x - h) - (i - 1) / n
    d = float(max(above.max(), below.max(), 0.0))
    bound = float(np.sqrt(np.log(2.0 / alpha) / (2.0 * n)))
    if d > bound:
        at = int(np.argmax(np.maximum(above, below)))
        return (f"{n} samples do not follow {what}: Kolmogorov-Smirnov distance {d:.3g} near {x[at]:.6g} "
                f"exceeds the DKW bound {bound:.3g} (false-alarm rate {alpha:g})")
    return ""
