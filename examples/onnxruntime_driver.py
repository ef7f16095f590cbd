"""A backend outside opconform: run the cases `opconform generate` wrote on onnxruntime and write its
answers where `opconform judge` reads them (no opconform import).  python onnxruntime_driver.py CASES OUTPUTS"""
import signal, subprocess, sys
from pathlib import Path

import numpy as np, onnx, onnxruntime as ort
from onnx import helper, numpy_helper

UNSUPPORTED = ("NOT_IMPLEMENTED", "not currently registered or supported", "can't be converted to MLDataType",
               "No corresponding Numpy type", "ValidateOpsetForDomain", "Unsupported model IR version")


def run_case(case: Path, out: Path) -> None:
    declared = [o.type.tensor_type.elem_type for o in onnx.load(case / "model.onnx").graph.output]
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.log_severity_level = 1, 4  # one thread; errors come back as exceptions
    for data in sorted(case.glob("test_data_set_*")):
        (out / data.name).mkdir(parents=True, exist_ok=True)
        feeds = {t.name: numpy_helper.to_array(t) for t in map(onnx.load_tensor, data.glob("input_*.pb"))}
        try:
            session = ort.InferenceSession((case / "model.onnx").read_bytes(), options, providers=["CPUExecutionProvider"])
            got = session.run(None, feeds)
        except Exception as e:  # its refusal: not implemented, or an error
            text = f"{type(e).__name__}: {e}"
            (out / data.name / ("unsupported.txt" if any(s in text for s in UNSUPPORTED) else "error.txt")).write_text(text)
            continue
        for k, (x, t) in enumerate(zip(got, declared)):  # float8 comes back as its bits: the declared type's
            want, x = helper.tensor_dtype_to_np_dtype(t), np.asarray(x)
            x = x.view(want) if x.dtype != want and x.dtype.itemsize == want.itemsize and want != object else x
            onnx.save_tensor(numpy_helper.from_array(x), out / data.name / f"output_{k}.pb")


def main(cases: Path, outputs: Path) -> None:
    todo = sorted(d.name for d in cases.iterdir() if (d / "model.onnx").is_file())
    while todo:  # a child process runs the cases left; the one that kills it gets crash.txt, the rest go on
        child = subprocess.run([sys.executable, __file__, "--child", cases, outputs, *todo], stdout=subprocess.PIPE, text=True)
        started = child.stdout.split()
        if child.returncode >= 0 or not started:  # done, or a failure of this script's own: not a case's
            sys.exit(child.returncode)
        (outputs / started[-1]).mkdir(parents=True, exist_ok=True)
        (outputs / started[-1] / "crash.txt").write_text(f"killed by {signal.Signals(-child.returncode).name}")
        todo = todo[todo.index(started[-1]) + 1:]


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        for name in sys.argv[4:]:
            print(name, flush=True)
            run_case(Path(sys.argv[2]) / name, Path(sys.argv[3]) / name)
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]))
