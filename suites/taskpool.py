"""Functions run in killable worker processes, each call under a time limit.

Case generation runs here: Hypothesis can take very long on a spec whose valid space is narrow,
and one slow spec must cost its own cases, not the whole run."""
from __future__ import annotations

import multiprocessing
import os
import signal
from multiprocessing.connection import wait
from time import monotonic
from typing import Any, Callable, Sequence


def _serve(conn: Any, fn: Callable) -> None:
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        index, args = task
        conn.send((index, fn(*args)))


def run(fn: Callable, calls: Sequence[tuple], *, jobs: int, timeout: float,
        on_done: Callable[[int, Any], None], on_failed: Callable[[int, str], None]) -> None:
    """fn(*calls[i]) for every i, `jobs` at a time; on_done(i, result), or on_failed(i, why) when
    a call runs past `timeout` seconds or its process dies (the process is replaced)."""
    ctx = multiprocessing.get_context("spawn")
    queue = list(range(len(calls)))[::-1]
    busy: dict[Any, tuple[Any, int, float]] = {}  # conn -> (process, index, started)
    idle: list[tuple[Any, Any]] = []

    def spawn() -> tuple[Any, Any]:
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_serve, args=(child, fn), daemon=True)
        p.start()
        child.close()
        return p, parent

    def retire(conn: Any) -> None:
        p, _, _ = busy.pop(conn)
        if p.is_alive():
            os.kill(p.pid, signal.SIGKILL)
        p.join()
        conn.close()

    idle = [spawn() for _ in range(min(jobs, len(calls)))]
    try:
        while queue or busy:
            while idle and queue:
                p, conn = idle.pop()
                i = queue.pop()
                conn.send((i, calls[i]))
                busy[conn] = (p, i, monotonic())
            ready = wait(list(busy) + [p.sentinel for p, _, _ in busy.values()], timeout=1.0)
            for conn in list(busy):
                p, i, started = busy[conn]
                if conn in ready:
                    try:
                        index, result = conn.recv()
                        busy.pop(conn)
                        idle.append((p, conn))
                        on_done(index, result)
                        continue
                    except (EOFError, OSError):
                        pass
                if not p.is_alive():
                    retire(conn)
                    on_failed(i, f"the generating process died (exit code {p.exitcode})")
                elif monotonic() - started > timeout:
                    retire(conn)
                    on_failed(i, f"generation took longer than {timeout:g} s")
                else:
                    continue
                if queue:
                    idle.append(spawn())
    finally:
        for p, conn in idle:
            try:
                conn.send(None)
            except OSError:
                pass
            p.join(timeout=5)
            if p.is_alive():
                os.kill(p.pid, signal.SIGKILL)
        for conn in list(busy):
            retire(conn)
