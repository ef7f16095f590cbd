"""The HTML report's first view: how big it is and how fast Chromium loads it, and how long the
report takes to render.

    python benchmarks/bench_report.py RESULTS_DIR... [--out DIR] [--loads 5] [--coverage] [--json]

Renders the report of the given results directories (as `opconform report` does), then reports
the size of DIR/index.html and of the whole report directory, and loads index.html (and the
largest detail page) from file:// in Debian's chromium (playwright) --loads times, each in a fresh
browser context: the median time to the load event and to first paint (first contentful paint
where the browser reports no first paint). Targets (issue 10): index.html under 2 MB and loaded in
under 1 s for a ci run of every spec on three backends; no warning printed while rendering.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import warnings
from pathlib import Path
from time import perf_counter

from opconform.reports import links
from opconform.reports.resultset import ResultSet
from opconform.reports.write import write_report

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
# navigation timing is relative to the navigation's start; paint entries too
TIMING_JS = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const paint = {};
  performance.getEntriesByType("paint").forEach(e => { paint[e.name] = e.startTime; });
  return {load: nav ? nav.loadEventEnd : null, dom: nav ? nav.domContentLoadedEventEnd : null,
          first_paint: paint["first-paint"] ?? paint["first-contentful-paint"] ?? null,
          height: document.documentElement.scrollHeight};
}"""


def dir_size(path: Path) -> tuple[int, int]:
    """(bytes, files) under path."""
    files = [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def render(dirs: list[str], out: Path, coverage: bool) -> dict:
    t0 = perf_counter()
    rs = ResultSet.load(dirs)
    t_load = perf_counter() - t0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t1 = perf_counter()
        write_report(rs, out, with_coverage=coverage)
        t_render = perf_counter() - t1
    return {"results": len(rs.results), "backends": rs.backends, "spec_versions": len(rs.spec_ids),
            "read_s": t_load, "render_s": t_render, "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}


def _median(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def load_times(pages: list[Path], loads: int) -> dict:
    """Per page: median load-event and first-paint times (ms) over `loads` loads, and any console error."""
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            for page_path in pages:
                samples, problems = [], []
                for _ in range(loads):
                    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                    pg = ctx.new_page()
                    pg.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
                    pg.on("pageerror", lambda e: problems.append(str(e)))
                    t0 = perf_counter()
                    pg.goto(page_path.resolve().as_uri(), wait_until="load")
                    wall = (perf_counter() - t0) * 1e3
                    pg.wait_for_timeout(50)  # paint entries are recorded after the frame is presented
                    samples.append({**pg.evaluate(TIMING_JS), "wall": wall})
                    ctx.close()
                out[str(page_path)] = {
                    "load_ms": _median([s["load"] for s in samples]),
                    "first_paint_ms": _median([s["first_paint"] for s in samples]),
                    "dom_content_loaded_ms": _median([s["dom"] for s in samples]),
                    "goto_wall_ms": _median([s["wall"] for s in samples]),
                    "height_px": samples[-1]["height"] if samples else None,
                    "console_errors": sorted(set(problems)),
                }
        finally:
            browser.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results directories (from `opconform run`)")
    ap.add_argument("--out", type=Path, default=None, help="keep the report here (default: a temporary directory)")
    ap.add_argument("--loads", type=int, default=5, help="loads per page; the median is reported")
    ap.add_argument("--coverage", action="store_true", help="include the coverage table (runs the official ONNX cases)")
    ap.add_argument("--no-browser", action="store_true", help="sizes and render time only")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "report"
        figures = render(args.results, out, args.coverage)
        index = out / "index.html"
        details = sorted((out / "details").glob("d-*.html"), key=lambda p: p.stat().st_size)  # one per backend x spec version
        every_group = out / links.ALL_GROUPS
        total, files = dir_size(out)
        figures.update(index_bytes=index.stat().st_size, report_bytes=total, report_files=files,
                       detail_pages=len(details), largest_detail=str(details[-1]) if details else None,
                       largest_detail_bytes=details[-1].stat().st_size if details else 0,
                       all_groups_bytes=every_group.stat().st_size if every_group.exists() else 0)
        if not args.no_browser:
            times = load_times([index] + details[-1:], args.loads)
            figures["index_load"] = times[str(index)]
            if details:
                figures["largest_detail_load"] = times[str(details[-1])]
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    mb = 1024 * 1024
    print(f"results           {figures['results']} over {figures['spec_versions']} spec versions, backends {', '.join(figures['backends'])}")
    print(f"read              {figures['read_s']:.1f} s; render {figures['render_s']:.1f} s"
          f" ({'with' if args.coverage else 'without'} coverage); warnings while rendering: {len(figures['warnings'])}")
    for w in figures["warnings"][:5]:
        print(f"  {w}")
    print(f"index.html        {figures['index_bytes'] / mb:.2f} MB (target < 2 MB)")
    print(f"report directory  {figures['report_bytes'] / mb:.1f} MB in {figures['report_files']} files "
          f"({figures['detail_pages']} detail pages, largest {figures['largest_detail_bytes'] / 1024:.0f} KB; "
          f"all failure groups page {figures['all_groups_bytes'] / 1024:.0f} KB)")
    for key, label in (("index_load", "index.html"), ("largest_detail_load", "largest detail page")):
        t = figures.get(key)
        if t:
            fp = "n/a" if t["first_paint_ms"] is None else f"{t['first_paint_ms']:.0f} ms"
            print(f"{label:<20}load event {t['load_ms']:.0f} ms, first paint {fp} (median of {args.loads}; "
                  f"target < 1000 ms for index.html); {t['height_px']} px tall{'; console errors: ' + '; '.join(t['console_errors']) if t['console_errors'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
