"""A log-log plot of time against size as inline SVG, written here: no script, no library, no
network (the report's Content-Security-Policy allows none of them).

    svg = plot([Series("distinct", [(100, 6e-5), (1000, 3e-4)], colour="#1f77b4")], title="onnx::Unique-11")

Every text that reaches the SVG (title, labels) is escaped; numbers are formatted here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Sequence

# one colour per stress case, cycled (colour-blind-safe Tableau-like set)
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[tuple[float, float]]  # (size, seconds), both > 0
    colour: str = PALETTE[0]
    dashed: bool = False  # the oracle's series are dashed, the backend's solid


@dataclass(frozen=True)
class Frame:
    """Where the plot area lies in the SVG, and the decades it spans on each axis."""

    width: int
    height: int
    left: int = 64
    right: int = 150  # room for the legend
    top: int = 28
    bottom: int = 40
    x_decades: tuple[int, int] = (2, 7)
    y_decades: tuple[int, int] = (-5, 1)

    def x(self, n: float) -> float:
        lo, hi = self.x_decades
        return self.left + (math.log10(n) - lo) / (hi - lo) * (self.width - self.left - self.right)

    def y(self, s: float) -> float:
        lo, hi = self.y_decades
        return self.height - self.bottom - (math.log10(s) - lo) / (hi - lo) * (self.height - self.top - self.bottom)


def decades(values: Sequence[float]) -> tuple[int, int]:
    """The whole decades around these values (at least one decade wide)."""
    if not values:
        return 0, 1
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return lo, max(hi, lo + 1)


def _tick(k: int, unit: str) -> str:
    if unit == "s":
        return {0: "1 s", -3: "1 ms", -6: "1 µs", -9: "1 ns"}.get(k, f"1e{k} s")
    return f"1e{k}"


def _num(v: float) -> str:
    return f"{v:.1f}"


def plot(series: Sequence[Series], *, title: str = "", x_label: str = "elements (n)", y_label: str = "seconds",
         width: int = 560, height: int = 320) -> str:
    """The SVG element (a string) of a log-log plot of the series; points that are not positive
    are left out (a log axis has no place for them)."""
    shown = [Series(s.label, [(x, y) for x, y in s.points if x > 0 and y > 0], s.colour, s.dashed) for s in series]
    xs = [x for s in shown for x, _ in s.points]
    ys = [y for s in shown for _, y in s.points]
    f = Frame(width, height, x_decades=decades(xs), y_decades=decades(ys))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="stress-plot" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title or "log-log plot")}">',
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>']
    x0, x1 = f.left, width - f.right
    y0, y1 = height - f.bottom, f.top
    for k in range(f.x_decades[0], f.x_decades[1] + 1):
        x = _num(f.x(10.0 ** k))
        parts.append(f'<line x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke="#ddd"/>')
        parts.append(f'<text x="{x}" y="{y0 + 14}" font-size="10" text-anchor="middle">{escape(_tick(k, "n"))}</text>')
    for k in range(f.y_decades[0], f.y_decades[1] + 1):
        y = _num(f.y(10.0 ** k))
        parts.append(f'<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#ddd"/>')
        parts.append(f'<text x="{x0 - 4}" y="{y}" font-size="10" text-anchor="end" dominant-baseline="middle">'
                     f'{escape(_tick(k, "s"))}</text>')
    parts.append(f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}" fill="none" stroke="#333"/>')
    parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{height - 6}" font-size="11" text-anchor="middle">{escape(x_label)}</text>')
    parts.append(f'<text x="12" y="{(y0 + y1) / 2:.1f}" font-size="11" text-anchor="middle" '
                 f'transform="rotate(-90 12 {(y0 + y1) / 2:.1f})">{escape(y_label)}</text>')
    if title:
        parts.append(f'<text x="{x0}" y="16" font-size="12" font-weight="bold">{escape(title)}</text>')
    for k, s in enumerate(shown):
        dash = ' stroke-dasharray="5 3"' if s.dashed else ""
        pts = " ".join(f"{_num(f.x(x))},{_num(f.y(y))}" for x, y in s.points)
        if len(s.points) > 1:
            parts.append(f'<polyline points="{pts}" fill="none" stroke="{escape(s.colour)}" stroke-width="1.5"{dash}/>')
        for x, y in s.points:
            parts.append(f'<circle cx="{_num(f.x(x))}" cy="{_num(f.y(y))}" r="2.2" fill="{escape(s.colour)}">'
                         f'<title>{escape(s.label)}: n = {x:,.0f}, {y:.3g} s</title></circle>')
        ly = f.top + 6 + 14 * k
        parts.append(f'<line x1="{x1 + 8}" y1="{ly}" x2="{x1 + 30}" y2="{ly}" stroke="{escape(s.colour)}" stroke-width="1.5"{dash}/>')
        parts.append(f'<text x="{x1 + 34}" y="{ly}" font-size="10" dominant-baseline="middle">{escape(s.label)}</text>')
    parts.append("</svg>")
    return "".join(parts)
