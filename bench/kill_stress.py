#!/usr/bin/env python3
"""Kill `saturate optimize -o OUT.onnx` at random moments and check what is left.

    python3 bench/kill_stress.py                       # 200 kills, a 420 MB model
    python3 bench/kill_stress.py --kills 30 --size-mb 100

Two models of one structure (a chain of 1024 x 1024 MatMuls with external data, --size-mb of
weights) differ only in their random weights, so each computes its own numbers. An optimize of
the first writes OUT.onnx; then, --kills times, an optimize of one or the other (alternately)
is started on the same -o and killed with SIGKILL after a random time up to an uninterrupted
run's duration (so kills land in every phase: import, search, export, the write). After each
kill:

- the visible OUT.onnx, loaded by ONNX Runtime with its data, must compute the numbers of one of
  the two models (a model of one with the data of the other computes neither: "mixed"), or be
  absent only if no run ever completed (it never is here: the first run completes);
- orphans: data files of the output's naming scheme (OUT.onnx.data, OUT.onnx.<hex>.data) that
  OUT.onnx does not name, younger than the 10 minutes after which a later run removes them;
- temporaries (.OUT.onnx*.tmp-saturate-*): counted after each kill, and after one final
  uninterrupted run, which must have removed those of the killed runs.

Results: bench/results/kill_stress/ (runs.jsonl as measured, RESULTS.md).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[1]
WIDTH = 1024


def make_model(path: pathlib.Path, layers: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    nodes, inits, current = [], [], "x"
    for k in range(layers):
        # He scaling keeps the activations' size through the Relu chain, so the two models'
        # outputs stay apart (with 1/sqrt(W) both decayed to zero and looked alike).
        w = (rng.standard_normal((WIDTH, WIDTH)) * np.sqrt(2.0 / WIDTH)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{k}"))
        nodes.append(helper.make_node("MatMul", [current, f"w{k}"], [f"h{k}"]))
        nodes.append(helper.make_node("Relu", [f"h{k}"], [f"r{k}"]))
        current = f"r{k}"
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, WIDTH])], [helper.make_tensor_value_info(
            current, TensorProto.FLOAT, [1, WIDTH])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location=path.name + ".data", size_threshold=1024)


def outputs_of(path: pathlib.Path, x: np.ndarray):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def data_names(model: pathlib.Path) -> set[str]:
    proto = onnx.load(str(model), load_external_data=False)
    return {e.value for t in proto.graph.initializer for e in t.external_data
            if e.key == "location"}


def scheme_files(folder: pathlib.Path, name: str) -> list[str]:
    out = []
    for p in folder.iterdir():
        rest = p.name[len(name) + 1:] if p.name.startswith(name + ".") else None
        if rest == "data" or (rest and len(rest) == 13 and rest.endswith(".data")
                              and all(c in "0123456789abcdef" for c in rest[:8])):
            out.append(p.name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--size-mb", type=int, default=420)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--binary", default=str(REPO / "build" / "bin" / "saturate"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "kill_stress"))
    args = parser.parse_args()
    layers = max(1, args.size_mb * (1 << 20) // (WIDTH * WIDTH * 4))
    rng = random.Random(args.seed)
    results = pathlib.Path(args.out)
    results.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.environ.get("KILL_STRESS_DIR")) as scratch, \
            (results / "runs.jsonl").open("w") as log:
        scratch = pathlib.Path(scratch)
        models = [scratch / "a" / "model.onnx", scratch / "b" / "model.onnx"]
        for seed, path in enumerate(models):
            make_model(path, layers, seed)
        x = np.random.default_rng(7).standard_normal((1, WIDTH)).astype(np.float32)
        expected = [outputs_of(path, x) for path in models]
        scale = max(float(np.abs(e).max()) for e in expected)

        def computes(now, e):
            return bool(np.allclose(now, e, rtol=1e-3, atol=1e-3 * scale))

        if computes(expected[0], expected[1]) or scale == 0:
            raise SystemExit("the two models compute the same numbers: the check would be blind")
        out_dir = scratch / "out"
        out_dir.mkdir()
        out = out_dir / "model.onnx"

        def optimize(source):
            return [args.binary, "optimize", str(source), "-o", str(out), "--cost", "analytic",
                    "--latency-runs", "0", "--external-data", "on"]

        started = time.monotonic()
        subprocess.run(optimize(models[0]), check=True, capture_output=True)
        full = time.monotonic() - started
        header = {"phase": "setup", "weights_mb": round(layers * WIDTH * WIDTH * 4 / 2**20),
                  "layers": layers, "uninterrupted_seconds": round(full, 2)}
        log.write(json.dumps(header) + "\n")
        print(json.dumps(header), file=sys.stderr)
        counts = {"old": 0, "new": 0, "mixed": 0, "orphans": 0, "temporaries_seen": 0}
        for kill in range(args.kills):
            which = (kill + 1) % 2
            before = outputs_of(out, x)
            delay = rng.uniform(0, full * 1.1)
            run = subprocess.Popen(optimize(models[which]), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            time.sleep(delay)
            run.send_signal(signal.SIGKILL)
            run.wait()
            row = {"kill": kill, "delay_s": round(delay, 3), "model": "ab"[which]}
            try:
                now = outputs_of(out, x)
                matches = [computes(now, e) for e in expected]
                row["visible"] = ("new" if matches[which] else "old") if any(matches) else "mixed"
                row["changed"] = not np.array_equal(now, before)
            except Exception as error:  # noqa: BLE001 - a pair ONNX Runtime cannot load
                row["visible"], row["error"] = "mixed", str(error)[:200]
            named = data_names(out) if out.exists() else set()
            row["orphans"] = sorted(set(scheme_files(out_dir, out.name)) - named)
            row["temporaries"] = sorted(p.name for p in out_dir.iterdir()
                                        if "tmp-saturate" in p.name)
            counts[row["visible"]] += 1
            counts["orphans"] += len(row["orphans"])
            counts["temporaries_seen"] += len(row["temporaries"])
            log.write(json.dumps(row) + "\n")
            log.flush()
        subprocess.run(optimize(models[0]), check=True, capture_output=True)
        left = sorted(p.name for p in out_dir.iterdir() if "tmp-saturate" in p.name)
        orphans_left = sorted(set(scheme_files(out_dir, out.name)) - data_names(out))
        summary = {"phase": "summary", **header, "kills": args.kills, **counts,
                   "temporaries_after_final_run": left, "orphans_after_final_run": orphans_left}
        log.write(json.dumps(summary) + "\n")
    (results / "RESULTS.md").write_text(
        "# Kill stress\n\n`python3 bench/kill_stress.py --kills {k} --size-mb {mb}` (see its "
        "docstring).\n\n| weights | uninterrupted run | kills | visible pair old / new | "
        "mixed | orphans seen after kills | temporaries seen after kills | temporaries left "
        "after the final run | orphans left after it |\n|---|---|---|---|---|---|---|---|---|\n"
        "| {w} MB | {t} s | {k} | {old} / {new} | {mixed} | {orph} | {tmp} | {left} | {ol} |\n"
        .format(k=args.kills, mb=args.size_mb, w=summary["weights_mb"],
                t=summary["uninterrupted_seconds"], old=counts["old"], new=counts["new"],
                mixed=counts["mixed"], orph=counts["orphans"], tmp=counts["temporaries_seen"],
                left=len(left), ol=len(orphans_left)))
    print((results / "RESULTS.md").read_text())
    return 0 if counts["mixed"] == 0 and not left else 1


if __name__ == "__main__":
    sys.exit(main())
