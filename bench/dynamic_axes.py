#!/usr/bin/env python3
"""Saturate and the peers on FULL-SIZE exports with DYNAMIC axes.

    /root/venv-export/bin/python bench/dynamic_axes.py                 # full size, T = 1 and 2
    /root/venv-export/bin/python bench/dynamic_axes.py --small --rounds 3 --threads 1
    /root/venv-export/bin/python bench/dynamic_axes.py --report-only   # RESULTS.md from the JSON lines

Models (``bench/dynamic_axes_models.py``; random weights, the fixtures' own export code imported
by path): BERT-base (dynamic batch, sequence) and GPT-2 small with a key-value cache
(decoder-with-past: dynamic batch_size, sequence_length, past_sequence_length,
total_sequence_length), each exported by the TorchScript and the dynamo exporter, every export
in its own process (``--phase export`` does only that).

For each export:
  1. the peers optimize it, each in its own process (bench/peers.py's ``_tool``):
       ort_transformers  ``onnxruntime.transformers.optimizer.optimize_model(FILE, model_type=
                         'bert'|'gpt2', num_heads=12, hidden_size=768)`` (its default opt_level;
                         nothing pins the inputs, so the output keeps the axes it keeps);
       onnxsim           ``onnxsim.simplify(model)`` with no input shapes given (the dynamic
                         inputs stay dynamic; an error would be recorded);
       onnxslim          ``onnxslim.slim(model)``;
     and Saturate: ``saturate optimize FILE -o OUT --verify --json REPORT --cost-cache COLD``
     (its defaults: cost model onnxruntime, measured, at ONNX Runtime's default threads, at its
     default shape profile: batch 1, other lengths 128; ``--cost analytic`` with ``--cost``).
     Optional ``saturate_decode`` (decoders, in ``--tools``): the same with ``--profile`` at the
     timed decode steps.  For every tool: wall time, and peak memory of the whole process tree
     (sum of the RSS of the tool's process and its descendants, sampled every 0.1 s from /proc;
     Saturate's ONNX Runtime helper is a child process), plus ru_maxrss of the tool's own process;
  2. what each output contains: node counts per op type (ONNX Runtime kernels: Attention,
     MultiHeadAttention, SkipLayerNormalization, BiasGelu, FastGelu, FusedMatMul, ...) and
     whether its inputs kept their dim_params;
  3. each output against the original in ONNX Runtime at one odd shape (BERT batch 2, sequence
     37 with a padded mask row; GPT-2 batch 2, 3 new tokens, past 37): every output,
     ``np.allclose(rtol=1e-3, atol=1e-4 * max(1, max|original|))`` (float32);
  4. latency in ONNX Runtime (CPU, ORT_ENABLE_ALL, intra-op threads T, inter-op 1, sequential,
     no spinning) of the original and every output at each shape (BERT (1, 64), (1, 128),
     (4, 128); GPT-2 one new token after past 0, 127, 511) and T: warm-up runs (whose outputs
     are compared with the original's at that shape), then --rounds rounds interleaved across
     the tools, the order rotated by one each round; median (p10-p90) ms, and each tool's
     per-round ratio original_ms[r] / tool_ms[r]: median (min..max).

Every record is appended to RESULTS.jsonl as it is made (a partial run keeps what it measured);
RESULTS.md and RESULTS.png are rewritten from it after each step.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import dynamic_axes_models as dm  # noqa: E402

PEERS = ["ort_transformers", "onnxsim", "onnxslim"]
TOOLS = PEERS + ["saturate", "saturate_decode"]
DEFAULT_TOOLS = PEERS + ["saturate"]
KERNELS = ["Attention", "MultiHeadAttention", "GroupQueryAttention", "SkipLayerNormalization",
           "EmbedLayerNormalization", "BiasGelu", "FastGelu", "Gelu", "FusedMatMul",
           "BiasAdd", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization",
           "QuickGelu", "RotaryEmbedding"]
SHORT = {"MultiHeadAttention": "MHA", "Attention": "Attn", "GroupQueryAttention": "GQA",
         "SkipLayerNormalization": "SkipLN", "EmbedLayerNormalization": "EmbedLN",
         "FusedMatMul": "FusedMM", "SimplifiedLayerNormalization": "RMSN",
         "SkipSimplifiedLayerNormalization": "SkipRMSN", "RotaryEmbedding": "Rotary"}
RTOL, ATOL_REL = 1e-3, 1e-4


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def one_line(text, limit=400):
    return " ".join(str(text).split())[:limit]


# --------------------------------------------------------------------------
# Results: JSON lines, appended as they are made
# --------------------------------------------------------------------------

class Results:
    def __init__(self, out_dir, fresh):
        self.out_dir = out_dir
        out_dir.mkdir(parents=True, exist_ok=True)
        self.path = out_dir / "RESULTS.jsonl"
        if fresh and self.path.exists():
            self.path.unlink()

    def add(self, record):
        record = dict(record, time=time.strftime("%Y-%m-%d %H:%M:%S"))
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")

    def load(self):
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]


# --------------------------------------------------------------------------
# Running a tool: wall time and peak memory of the process tree
# --------------------------------------------------------------------------

def _children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss(root):
    kids = _children_map()
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss_bytes(pid)
        stack += kids.get(pid, [])
    return total, len(seen)


def run_measured(cmd, timeout, log_path, cwd=None):
    """Runs cmd (its own process group; stdout and stderr to log_path).  Returns
    {returncode (None on timeout), seconds, peak_tree_rss_mib, peak_processes,
    ru_maxrss_mib (the tool's own process), tail}."""
    # GNU time reports the tool's own maximum RSS: ru_maxrss straight from wait4 here would
    # start at this (large) process's RSS, which Linux carries over fork and exec.
    time_file = pathlib.Path(str(log_path) + ".time")
    if time_file.exists():
        time_file.unlink()
    wrapper = (["/usr/bin/time", "-f", "%M", "-o", str(time_file)]
               if os.path.exists("/usr/bin/time") else [])
    with open(log_path, "w") as log_file:
        start = time.perf_counter()
        proc = subprocess.Popen(wrapper + [str(c) for c in cmd], stdout=log_file,
                                stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True)
        peak, peak_procs, rc, rusage = 0, 0, None, None
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                rc, rusage = os.waitstatus_to_exitcode(status), ru
                proc.returncode = rc
                break
            rss, procs = tree_rss(proc.pid)
            if rss > peak:
                peak, peak_procs = rss, procs
            if time.perf_counter() - start > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, ru = os.wait4(proc.pid, 0)
                proc.returncode = -9
                rc, rusage = None, ru
                break
            time.sleep(0.1)
        seconds = time.perf_counter() - start
    text = pathlib.Path(log_path).read_text(errors="replace")
    own = None
    if time_file.exists():
        try:
            own = int(time_file.read_text().split()[-1]) / 1024
        except (ValueError, IndexError):
            own = None
    return {"returncode": rc, "seconds": seconds, "peak_tree_rss_mib": peak / 2**20,
            "peak_processes": peak_procs, "ru_maxrss_mib": own,
            "tail": text[-3000:] + (f"\ntimed out after {timeout} s" if rc is None else "")}


# --------------------------------------------------------------------------
# Describing a written model
# --------------------------------------------------------------------------

def op_counts(path):
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    counts = {}

    def walk(graph):
        for node in graph.node:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    ms = {n.op_type for n in model.graph.node if n.domain == "com.microsoft"}
    return {"nodes": sum(counts.values()), "ops": dict(sorted(counts.items())),
            "com_microsoft": sorted(ms),
            "opset": next((o.version for o in model.opset_import
                           if o.domain in ("", "ai.onnx")), None)}


def kernels_text(counts):
    if not counts:
        return "-"
    ops = counts["ops"]
    parts = [f"{SHORT.get(k, k)} {ops[k]}" for k in KERNELS if ops.get(k)]
    extra = [k for k in counts.get("com_microsoft", []) if k not in KERNELS]
    parts += [f"{k} {ops[k]}" for k in extra]
    return ", ".join(parts) if parts else "none"


# --------------------------------------------------------------------------
# ONNX Runtime
# --------------------------------------------------------------------------

def session(path, threads):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    # Sessions are timed in turn: idle pools must not spin on the cores of the one timed.
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def compare(ref, got, names):
    """(ok, max_abs, worst output) with np.allclose(rtol, atol scaled to the output's range)."""
    if len(ref) != len(got):
        return False, None, f"{len(got)} outputs, the original has {len(ref)}"
    ok, worst, where = True, 0.0, None
    for name, r, g in zip(names, ref, got):
        if r.shape != g.shape:
            return False, None, f"{name}: shape {list(g.shape)} vs {list(r.shape)}"
        if not r.size:
            continue
        diff = float(np.max(np.abs(r.astype(np.float64) - g.astype(np.float64))))
        atol = ATOL_REL * max(1.0, float(np.max(np.abs(r))))
        if not np.allclose(g, r, rtol=RTOL, atol=atol):
            ok = False
            where = name
        if diff > worst:
            worst = diff
            where = where if not ok else name
    return ok, worst, where


def summary(samples):
    a = np.asarray(samples, dtype=float)
    return {"median_ms": float(np.median(a)), "p10_ms": float(np.percentile(a, 10)),
            "p90_ms": float(np.percentile(a, 90)), "min_ms": float(a.min()),
            "max_ms": float(a.max()), "n": int(a.size)}


def ratio_summary(base, other):
    n = min(len(base), len(other))
    r = np.asarray(base[:n], dtype=float) / np.asarray(other[:n], dtype=float)
    return {"median": float(np.median(r)), "min": float(r.min()), "max": float(r.max()),
            "p10": float(np.percentile(r, 10)), "p90": float(np.percentile(r, 90))}


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------

def export_step(args, res, name, exporter):
    cfg_key = "small" if args.small else "full"
    out = args.work_dir / "models" / f"{name}.{exporter}.onnx"
    status = out.with_suffix(".status.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists() and status.exists() and not args.re_export:
        info = json.loads(status.read_text())
        info["reused"] = True
        info["counts"] = op_counts(out)
        res.add({"type": "export", "model": name, "exporter": exporter, **info})
        log(f"{name}.{exporter}: export reused ({info.get('export_seconds', 0):.0f} s when made)")
        return out, info
    for stale in (out, status):
        if stale.exists():
            stale.unlink()
    log(f"{name}.{exporter}: exporting ({cfg_key})")
    cmd = [sys.executable, REPO / "bench" / "dynamic_axes_models.py", "export", name, exporter,
           out, status] + (["--small"] if args.small else [])
    run = run_measured(cmd, args.timeout, out.with_suffix(".export.log"))
    info = json.loads(status.read_text()) if status.exists() else {}
    if run["returncode"] != 0 or not out.exists():
        info["error"] = f"export failed (exit {run['returncode']}): {run['tail'][-1500:]}"
    info.update({"process_seconds": run["seconds"], "peak_tree_rss_mib": run["peak_tree_rss_mib"]})
    if out.exists() and run["returncode"] == 0:
        info["counts"] = op_counts(out)
        status.write_text(json.dumps({k: v for k, v in info.items() if k != "counts"}, indent=2)
                          + "\n")
    res.add({"type": "export", "model": name, "exporter": exporter, **info})
    if info.get("error"):
        log(f"{name}.{exporter}: EXPORT FAILED: {one_line(info['error'])}")
        return None, info
    log(f"{name}.{exporter}: exported in {info.get('export_seconds', 0):.0f} s, "
        f"{info.get('nodes')} nodes, {info.get('bytes', 0) / 1e6:.0f} MB; torch check "
        f"{info.get('torch_check', {}).get('ok')}")
    return out, info


def optimize_step(args, res, name, exporter, path, tool):
    cfg = dm.SPECS[name]["small" if args.small else "full"]
    tool_dir = args.work_dir / "outputs" / f"{name}.{exporter}" / tool
    tool_dir.mkdir(parents=True, exist_ok=True)
    out = tool_dir / f"{name}.{exporter}.{tool}.onnx"
    record = {"type": "optimize", "model": name, "exporter": exporter, "tool": tool,
              "output": str(out)}
    if tool.startswith("saturate"):
        report = tool_dir / "report.json"
        cache = tool_dir / "costs.sqlite"
        for stale in (out, report, cache) + tuple(
                pathlib.Path(str(cache) + s) for s in ("-journal", "-wal", "-shm")):
            if stale.exists():
                stale.unlink()  # a cold cost cache every time
        cmd = [args.binary, "optimize", path, "-o", out, "--verify", "--json", report,
               "--cost-cache", cache]
        if args.cost:
            cmd += ["--cost", args.cost]
        profiles = cfg.get("decode_profiles") if tool == "saturate_decode" else cfg.get("profiles")
        if tool == "saturate_decode" and not profiles:
            record["skipped"] = "no decode profiles for an encoder"
            res.add(record)
            return record
        for p in profiles or []:
            cmd += ["--profile", dm.profile_arg(p)]
        cmd += args.saturate_args
    else:
        status = tool_dir / "status.json"
        if status.exists():
            status.unlink()
        options = {}
        if tool == "ort_transformers":
            if cfg["ort"] is None:
                record["skipped"] = ("onnxruntime.transformers.optimizer has no model type "
                                     "for this architecture")
                res.add(record)
                return record
            model_type, heads, hidden = cfg["ort"]
            options = {"model_type": model_type, "num_heads": heads, "hidden_size": hidden,
                       "opt_level": None}
            record["options"] = options
        cmd = [sys.executable, REPO / "bench" / "peers.py", "_tool", tool, path, out, status,
               json.dumps(options)]
    record["command"] = shlex.join(map(str, cmd))
    if out.exists():
        out.unlink()
    log(f"{name}.{exporter}: {tool}: optimizing")
    run = run_measured(cmd, args.timeout, tool_dir / "log.txt", cwd=tool_dir)
    record.update({k: run[k] for k in ("returncode", "seconds", "peak_tree_rss_mib",
                                       "peak_processes", "ru_maxrss_mib")})
    if tool.startswith("saturate"):
        if report.exists():
            try:
                data = json.loads(report.read_text())
                record["report"] = {k: data.get(k) for k in (
                    "verified", "fused_operators", "kept_original", "shape_profiles",
                    "verify_input_shapes", "verification_profiles", "latency_check",
                    "max_relative_error", "cost_model", "cost_threads", "explore_seconds",
                    "extract_seconds", "cost_measure_seconds", "egraph_nodes", "ilp_optimal",
                    "stop_reason", "session_fusion_guards", "symbols", "original_ops",
                    "optimized_ops")}
            except json.JSONDecodeError as e:
                record["report_error"] = str(e)
    else:
        if status.exists():
            record["status"] = json.loads(status.read_text())
    if run["returncode"] != 0 or not out.exists():
        record["error"] = (f"exit {run['returncode']}" if run["returncode"] is not None
                           else "timeout") + ": " + run["tail"][-2000:]
        log(f"{name}.{exporter}: {tool}: FAILED after {run['seconds']:.0f} s: "
            f"{one_line(run['tail'][-400:])}")
    else:
        record["counts"] = op_counts(out)
        record["dynamic_dims"] = dm.dynamic_dims(out)
        record["bytes"] = out.stat().st_size
        log(f"{name}.{exporter}: {tool}: {run['seconds']:.1f} s, peak "
            f"{run['peak_tree_rss_mib']:.0f} MiB, {record['counts']['nodes']} nodes, "
            f"{kernels_text(record['counts'])}")
    res.add(record)
    return record


def verify_step(args, res, name, exporter, path, outputs):
    """Each output against the original at the one verify shape (T = 2)."""
    cfg = dm.SPECS[name]["small" if args.small else "full"]
    shape = cfg["verify_shape"]
    inputs = dm.input_dims(path)
    feeds = dm.make_feeds(inputs, shape, cfg["vocab"], dm.SPECS[name]["kind"], args.seed + 99)
    try:
        orig = session(path, 2)
        names = [o.name for o in orig.get_outputs()]
        ref = orig.run(None, feeds)
        del orig
    except Exception as e:  # noqa: BLE001
        res.add({"type": "verify", "model": name, "exporter": exporter, "tool": "original",
                 "shape": shape, "ok": False, "error": f"{type(e).__name__}: {one_line(e, 800)}"})
        return
    for tool, out in outputs:
        record = {"type": "verify", "model": name, "exporter": exporter, "tool": tool,
                  "shape": shape, "rtol": RTOL, "atol_rel": ATOL_REL}
        try:
            sess = session(out, 2)
            got_names = [o.name for o in sess.get_outputs()]
            got = sess.run(names, {i.name: feeds[i.name] for i in sess.get_inputs()}) \
                if set(names) <= set(got_names) else sess.run(None, {
                    i.name: feeds[i.name] for i in sess.get_inputs()})
            ok, worst, where = compare(ref, got, names)
            record.update(ok=ok, max_abs_diff=worst, worst_output=where,
                          max_abs_original=max(float(np.max(np.abs(r))) for r in ref if r.size))
            del sess
        except Exception as e:  # noqa: BLE001
            record.update(ok=False, error=f"{type(e).__name__}: {one_line(e, 800)}")
        res.add(record)
        log(f"{name}.{exporter}: verify {tool} at {dm.shape_label(shape)}: {record.get('ok')} "
            f"(max abs {record.get('max_abs_diff')}) {record.get('error', '')}")
    gc.collect()


def timing_step(args, res, name, exporter, path, outputs, threads):
    cfg = dm.SPECS[name]["small" if args.small else "full"]
    kind = dm.SPECS[name]["kind"]
    rounds = args.decoder_rounds if kind == "decoder" else args.rounds
    variants = [("original", path)] + list(outputs)
    sessions, errors = {}, {}
    for key, file in variants:
        try:
            sessions[key] = session(file, threads)
        except Exception as e:  # noqa: BLE001
            errors[key] = f"session: {type(e).__name__}: {one_line(e, 800)}"
    inputs = dm.input_dims(path)
    for n, shape in enumerate(cfg["shapes"]):
        record = {"type": "timing", "model": name, "exporter": exporter, "threads": threads,
                  "shape": shape, "label": dm.shape_label(shape), "rounds": rounds,
                  "warmup": args.warmup, "tools": {}}
        feeds = dm.make_feeds(inputs, shape, cfg["vocab"], kind, args.seed + n)
        ref, names = None, None
        live, fns = {}, {}
        for key, _ in variants:
            if key in errors:
                record["tools"][key] = {"error": errors[key]}
                continue
            sess = sessions[key]
            try:
                f = {i.name: feeds[i.name] for i in sess.get_inputs()}
            except KeyError as e:
                record["tools"][key] = {"error": f"input not fed by the original's feeds: {e}"}
                continue
            try:
                out_names = [o.name for o in sess.get_outputs()]
                if key == "original":
                    names = out_names
                wanted = names if names and set(names) <= set(out_names) else None
                first = sess.run(wanted, f)
                for _ in range(max(0, args.warmup - 1)):
                    sess.run(wanted, f)
                entry = {}
                if key == "original":
                    ref = first
                elif ref is not None:
                    ok, worst, where = compare(ref, first, names)
                    entry.update(matches_original=ok, max_abs_diff=worst)
                record["tools"][key] = entry
                live[key] = (sess, f, wanted)
            except Exception as e:  # noqa: BLE001
                record["tools"][key] = {"error": f"run: {type(e).__name__}: {one_line(e, 800)}"}
        keys = list(live)
        samples = {k: [] for k in keys}
        for r in range(rounds):
            shift = r % max(len(keys), 1)
            for key in keys[shift:] + keys[:shift]:
                sess, f, wanted = live[key]
                t0 = time.perf_counter()
                sess.run(wanted, f)
                samples[key].append((time.perf_counter() - t0) * 1e3)
        for key in keys:
            record["tools"][key].update(summary(samples[key]))
            record["tools"][key]["samples_ms"] = samples[key]
            if "original" in samples and key != "original":
                record["tools"][key]["ratio"] = ratio_summary(samples["original"], samples[key])
        res.add(record)
        base = record["tools"].get("original", {}).get("median_ms")
        parts = []
        for key, t in record["tools"].items():
            if "median_ms" in t:
                parts.append(f"{key} {t['median_ms']:.2f} ms"
                             + (f" ({t['ratio']['median']:.3f}x)" if "ratio" in t else ""))
            else:
                parts.append(f"{key} ERROR")
        log(f"{name}.{exporter} T={threads} {dm.shape_label(shape)}: " + "; ".join(parts)
            + ("" if base else " [original not timed]"))
        write_report(args, res)
    sessions.clear()
    live.clear()
    gc.collect()


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def latest(records, kind, *keys):
    """{key tuple: last record of this type}."""
    out = {}
    for r in records:
        if r.get("type") == kind:
            out[tuple(json.dumps(r.get(k), sort_keys=True) if isinstance(r.get(k), dict)
                      else r.get(k) for k in keys)] = r
    return out


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def write_report(args, res):
    records = res.load()
    (args.out_dir / "RESULTS.md").write_text(markdown(records, args))
    try:
        plot(records, args.out_dir / "RESULTS.png")
    except Exception as e:  # noqa: BLE001
        log(f"plot failed: {type(e).__name__}: {e}")


def markdown(records, args):
    starts = [r for r in records if r.get("type") == "start"]
    start = starts[-1] if starts else {}
    m = start.get("machine", {})
    exports = latest(records, "export", "model", "exporter")
    opts = latest(records, "optimize", "model", "exporter", "tool")
    verifs = latest(records, "verify", "model", "exporter", "tool")
    timings = latest(records, "timing", "model", "exporter", "threads", "label")
    tools = start.get("tools", DEFAULT_TOOLS)
    pairs = []
    for r in records:
        if r.get("type") in ("export", "optimize", "timing") and \
                (r["model"], r["exporter"]) not in pairs:
            pairs.append((r["model"], r["exporter"]))
    lines = [
        "# Saturate and the peers on full-size exports with dynamic axes",
        "",
        f"Generated by `bench/dynamic_axes.py` ({'SMALL configurations' if start.get('small') else 'full size'}), "
        f"run started {start.get('time', '?')}; machine: {m.get('cpu', '?')}, {m.get('cpus')} "
        f"CPUs, {m.get('memory_gib')} GiB; ONNX Runtime {m.get('onnxruntime')}, onnx "
        f"{m.get('onnx')}, onnxsim {m.get('onnxsim')}, onnxslim {m.get('onnxslim')}, torch "
        f"{m.get('torch')}, transformers {m.get('transformers')}; commit {m.get('commit')}"
        f"{' (dirty tree)' if m.get('dirty') else ''}; saturate binary {m.get('saturate_binary')}.",
        "",
        "Command (the exports are reused from the work dir when present):",
        "",
        "```bash",
        start.get("command", "/root/venv-export/bin/python bench/dynamic_axes.py"),
        "```",
        "",
        "Latency: ONNX Runtime CPU, ORT_ENABLE_ALL, intra-op threads T, inter-op 1, sequential, "
        f"no spinning; {start.get('warmup', '?')} warm-up runs, then "
        f"{start.get('rounds', '?')} rounds (BERT) / {start.get('decoder_rounds', '?')} rounds "
        "(GPT-2) interleaved across the tools, the order rotated each round. `original ms`: "
        "the original's median (p10-p90). Each tool: the median of the per-round ratios "
        "original_ms / tool_ms (min..max over the rounds); > 1 means the tool's model is faster. "
        "`x` marks an output whose warm-up outputs at that shape did not match the original's.",
        "",
        "Saturate: `saturate optimize X.onnx -o Y.onnx --verify --json R` with a cold cost cache "
        f"{('and `--cost ' + start['cost'] + '`') if start.get('cost') else '(default cost model: onnxruntime, measured, at ONNX Runtime default threads = 2 here; default shape profile: batch 1, other lengths 128)'}"
        f"{(' and ' + shlex.join(start['saturate_args'])) if start.get('saturate_args') else ''}; "
        "one Saturate output per export, timed at every T. `saturate_decode` (if present): the "
        "same with `--profile` at the timed decode steps.",
    ]
    for model in dict.fromkeys(p[0] for p in pairs):
        lines += ["", f"## {model}: latency", "",
                  "| exporter | shape | T | original ms | " + " | ".join(tools) + " |",
                  "|---|---|--:|--:|" + "--:|" * len(tools)]
        for (mm, exporter, threads, label), t in timings.items():
            if mm != model:
                continue
            o = t["tools"].get("original", {})
            row = [exporter, label, str(threads),
                   f"{o['median_ms']:.2f} ({o['p10_ms']:.2f}-{o['p90_ms']:.2f})"
                   if "median_ms" in o else "ERROR: " + one_line(o.get("error", "?"), 120)]
            for tool in tools:
                e = t["tools"].get(tool)
                if e is None:
                    op = opts.get((model, exporter, tool))
                    row.append("failed" if op and op.get("error") else
                               "skipped" if op and op.get("skipped") else "-")
                elif "ratio" in e:
                    mark = "" if e.get("matches_original", True) else " x"
                    row.append(f"{e['ratio']['median']:.3f} ({e['ratio']['min']:.2f}.."
                               f"{e['ratio']['max']:.2f}){mark}")
                elif "error" in e:
                    row.append("ERROR: " + one_line(e["error"], 100))
                else:
                    row.append(f"{e.get('median_ms', 0):.2f} ms")
            lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## What each output contains", "",
              "ONNX Runtime kernels in the written model (the graph as written, before ONNX "
              "Runtime's own session-time fusions), Softmax and LayerNormalization nodes left, "
              "nodes in all; `dynamic`: the output's inputs keep the original's dim_params; "
              "`verified`: every output allclose to the original's at the verify shape "
              f"(rtol {RTOL}, atol {ATOL_REL} x max(1, max|original|); max abs difference).",
              "", "| model | exporter | tool | kernels | Softmax | LayerNorm | nodes | dynamic | "
              "verified (shape) |", "|---|---|---|---|--:|--:|--:|---|---|"]
    for model, exporter in pairs:
        e = exports.get((model, exporter), {})
        rows = [("original", e.get("nodes"), None)]
        for tool in tools:
            op = opts.get((model, exporter, tool))
            if op:
                rows.append((tool, None, op))
        orig_dyn = None
        for tool, nodes, op in rows:
            v = verifs.get((model, exporter, tool))
            vtext = "-"
            if v:
                vtext = ("yes" if v.get("ok") else "NO") + (
                    f" ({v['max_abs_diff']:.1e})" if v.get("max_abs_diff") is not None else "") + (
                    f" {one_line(v['error'], 120)}" if v.get("error") else "") + (
                    f" at {dm.shape_label(v['shape'])}" if v.get("shape") else "")
            if op is None:
                dyn = "yes"
                if e.get("inputs"):
                    orig_dyn = {vi["name"]: [d for d in vi["shape"] if isinstance(d, str)]
                                for vi in e["inputs"]}
                c = e.get("counts") or {"ops": {}, "nodes": nodes}
                lines.append(f"| {model} | {exporter} | original | {kernels_text(c)} | "
                             f"{fmt(c['ops'].get('Softmax'), 'd')} | "
                             f"{fmt(c['ops'].get('LayerNormalization'), 'd')} | "
                             f"{fmt(c.get('nodes'), 'd')} | {dyn} | - |")
                continue
            if op.get("skipped"):
                lines.append(f"| {model} | {exporter} | {tool} | skipped: {op['skipped']} "
                             "| | | | | |")
                continue
            if op.get("error"):
                lines.append(f"| {model} | {exporter} | {tool} | FAILED: "
                             f"{one_line(op['error'], 200)} | | | | | |")
                continue
            counts = op.get("counts")
            dd = op.get("dynamic_dims") or {}
            kept = "yes"
            if orig_dyn:
                lost = [n for n, ds in orig_dyn.items() if ds and dd.get(n) != ds]
                kept = "yes" if not lost else "NO: " + ", ".join(
                    f"{n} {dd.get(n, 'static')}" for n in lost[:3])
            kept_orig = (op.get("report") or {}).get("kept_original")
            lines.append(f"| {model} | {exporter} | {tool}"
                         f"{' (kept the original)' if kept_orig else ''} | "
                         f"{kernels_text(counts)} | {counts['ops'].get('Softmax', 0)} | "
                         f"{counts['ops'].get('LayerNormalization', 0)} | {counts['nodes']} | "
                         f"{kept} | {vtext} |")
    lines += ["", "## Optimize time and peak memory", "",
              "Wall time of the tool's process (peers: Python start, load, optimize, save; "
              "Saturate: the whole `optimize ... --verify` command, cost measurement, latency "
              "check and verification included); peak RSS summed over the process tree "
              "(sampled every 0.1 s, so a peak shorter than that can be missed) and the largest "
              "single process's maximum RSS (GNU time's %M: the tool's process and the children "
              "it waited for).", "",
              "| model | exporter | tool | optimize s | peak tree RSS MiB | max RSS MiB (GNU time) | "
              "processes (with time) | notes |", "|---|---|---|--:|--:|--:|--:|---|"]
    for model, exporter in pairs:
        e = exports.get((model, exporter))
        if e:
            lines.append(f"| {model} | {exporter} | (export) | {fmt(e.get('export_seconds'), '.1f')} "
                         f"| {fmt(e.get('peak_tree_rss_mib'), '.0f')} | - | - | "
                         f"{fmt(e.get('nodes'), 'd')} nodes, {fmt((e.get('bytes') or 0) / 1e6, '.0f')} MB, "
                         f"opset {e.get('opset')}; vs PyTorch "
                         f"{(e.get('torch_check') or {}).get('ok')} |")
        for tool in tools:
            op = opts.get((model, exporter, tool))
            if not op or op.get("skipped"):
                continue
            notes = []
            rep = op.get("report") or {}
            if rep:
                lc = rep.get("latency_check") or {}
                notes.append(f"verified {rep.get('verified')}")
                if lc:
                    notes.append(f"latency check kept {lc.get('kept')} "
                                 f"({fmt(lc.get('original_median_ms'), '.2f')} -> "
                                 f"{fmt(lc.get('optimized_median_ms'), '.2f')} ms at "
                                 f"{lc.get('input_shapes', {}).get('input_ids')})")
                prof = rep.get("shape_profiles") or []
                if prof:
                    notes.append("profiles " + "; ".join(
                        ",".join(f"{k}={v}" for k, v in p.get("sizes", {}).items())
                        for p in prof))
                if rep.get("fused_operators"):
                    notes.append("fused " + ", ".join(f"{k} {v}" for k, v in
                                                      rep["fused_operators"].items()))
            st = op.get("status") or {}
            if "onnxsim_check" in st:
                notes.append(f"onnxsim check {st['onnxsim_check']}")
            if op.get("error"):
                notes.append("FAILED: " + one_line(op["error"], 300))
            lines.append(f"| {model} | {exporter} | {tool} | {fmt(op.get('seconds'), '.1f')} | "
                         f"{fmt(op.get('peak_tree_rss_mib'), '.0f')} | "
                         f"{fmt(op.get('ru_maxrss_mib'), '.0f')} | "
                         f"{fmt(op.get('peak_processes'), 'd')} | {'; '.join(notes)} |")
    errors = []
    for r in records:
        if r.get("error") and r.get("type") in ("export", "optimize", "verify"):
            errors.append(f"- {r['type']} {r.get('model')}.{r.get('exporter')} "
                          f"{r.get('tool', '')}: `{one_line(r['error'], 600)}`")
        if r.get("type") == "timing":
            for tool, t in r["tools"].items():
                if t.get("error"):
                    errors.append(f"- timing {r['model']}.{r['exporter']} T={r['threads']} "
                                  f"{r['label']} {tool}: `{one_line(t['error'], 400)}`")
                elif t.get("matches_original") is False:
                    errors.append(f"- timing {r['model']}.{r['exporter']} T={r['threads']} "
                                  f"{r['label']} {tool}: outputs differ from the original's "
                                  f"(max abs {t.get('max_abs_diff')})")
    if errors:
        lines += ["", "## Errors and mismatches", ""] + errors
    ends = [r for r in records if r.get("type") == "end"]
    if ends:
        lines += ["", f"Run finished {ends[-1]['time']} after {ends[-1]['seconds']:.0f} s."]
    else:
        lines += ["", "Run not finished (partial results)."]
    return "\n".join(lines) + "\n"


def plot(records, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        log(f"matplotlib not available ({type(e).__name__}); no plot")
        return False
    timings = latest(records, "timing", "model", "exporter", "threads", "label")
    if not timings:
        return False
    starts = [r for r in records if r.get("type") == "start"]
    tools = (starts[-1].get("tools") if starts else None) or DEFAULT_TOOLS
    panels = sorted({(k[0], k[2]) for k in timings})
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(10, 3.2 * len(panels)))
    width = 0.8 / len(tools)
    for ax, (model, threads) in zip(axes[:, 0], panels):
        rows = [(k, t) for k, t in timings.items() if k[0] == model and k[2] == threads]
        x = np.arange(len(rows))
        for i, tool in enumerate(tools):
            vals, lo, hi = [], [], []
            for _, t in rows:
                e = t["tools"].get(tool, {})
                r = e.get("ratio")
                vals.append(r["median"] if r else np.nan)
                lo.append(r["median"] - r["min"] if r else 0)
                hi.append(r["max"] - r["median"] if r else 0)
            ax.bar(x + (i - (len(tools) - 1) / 2) * width, vals, width, label=tool,
                   yerr=[lo, hi], error_kw={"elinewidth": 0.6, "capsize": 1.5})
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([f"{k[1]}\n{k[3]}" for k, _ in rows], fontsize=7)
        ax.set_ylabel("original / tool")
        ax.set_title(f"{model}, {threads} thread{'s' if threads != 1 else ''}: per-round "
                     "ratio median (min..max)", fontsize=9)
        finite = [b.get_height() for b in ax.patches if np.isfinite(b.get_height())]
        if finite:
            ax.set_ylim(max(0.0, min(finite + [1.0]) - 0.1), max(finite + [1.0]) + 0.1)
        ax.grid(axis="y", linewidth=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def machine_info(binary):
    from real_exports import host_info  # bench/

    info = host_info()
    for module in ("onnxruntime", "onnx", "onnxsim", "onnxslim", "numpy", "torch",
                   "transformers"):
        try:
            info[module] = __import__(module).__version__
        except Exception:  # noqa: BLE001
            info[module] = None
    if binary.exists():
        h = hashlib.sha256(binary.read_bytes()).hexdigest()[:12]
        info["saturate_binary"] = (f"{binary} sha256 {h}, built "
                                   f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime(binary.stat().st_mtime))} UTC")
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true",
                    help="tiny configurations, one shape (a smoke test of the whole pipeline)")
    ap.add_argument("--models", nargs="+", default=dm.DEFAULT_MODELS, choices=list(dm.SPECS))
    ap.add_argument("--exporters", nargs="+", default=["torchscript", "dynamo"],
                    choices=["torchscript", "dynamo"])
    ap.add_argument("--tools", nargs="+", default=DEFAULT_TOOLS, choices=TOOLS)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=10, help="timing rounds, BERT")
    ap.add_argument("--decoder-rounds", type=int, default=30, help="timing rounds, GPT-2 decode")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--phase", choices=["all", "export"], default="all",
                    help="export: only write the exports (reused by a later run)")
    ap.add_argument("--re-export", action="store_true", help="export again even if present")
    ap.add_argument("--binary", type=pathlib.Path, default=REPO / "build" / "bin" / "saturate")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="run --binary itself, not a copy made at the start")
    ap.add_argument("--cost", choices=["analytic", "onnxruntime"], default=None,
                    help="Saturate's --cost (default: its own default, onnxruntime measured)")
    ap.add_argument("--saturate-args", default="", help="more saturate optimize arguments")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per tool run")
    ap.add_argument("--work-dir", type=pathlib.Path, default=None,
                    help="exports and outputs (default /work/dynamic-axes-work[-small])")
    ap.add_argument("--out-dir", type=pathlib.Path, default=None,
                    help="results (default bench/results/dynamic_axes[/small])")
    ap.add_argument("--append", action="store_true",
                    help="append to RESULTS.jsonl instead of starting it again")
    ap.add_argument("--report-only", action="store_true",
                    help="only rewrite RESULTS.md and RESULTS.png from RESULTS.jsonl")
    args = ap.parse_args()
    args.saturate_args = shlex.split(args.saturate_args)
    suffix = "-small" if args.small else ""
    args.work_dir = (args.work_dir or pathlib.Path(f"/work/dynamic-axes-work{suffix}")).resolve()
    args.out_dir = (args.out_dir or (REPO / "bench" / "results" / "dynamic_axes"
                                     / ("small" if args.small else ""))).resolve()
    if args.report_only:
        write_report(args, Results(args.out_dir, fresh=False))
        log(f"wrote {args.out_dir / 'RESULTS.md'}")
        return 0
    if any(t.startswith("saturate") for t in args.tools) and not args.binary.exists():
        ap.error(f"{args.binary} does not exist")
    res = Results(args.out_dir, fresh=not args.append and args.phase == "all")
    binary_source = args.binary
    if args.phase == "all" and args.binary.exists() and not args.no_snapshot:
        # A copy, so that a rebuild of build/bin during the run cannot change the binary
        # halfway (it finds its rules through the source tree, as the original does).
        snapshot = args.work_dir / "bin" / "saturate"
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(args.binary, snapshot)
        args.binary = snapshot
    started = time.perf_counter()
    if args.phase == "all":
        res.add({"type": "start", "command": shlex.join(
                     ["/root/venv-export/bin/python", "bench/dynamic_axes.py"] + sys.argv[1:]),
                 "small": args.small, "tools": args.tools, "threads": args.threads,
                 "rounds": args.rounds, "decoder_rounds": args.decoder_rounds,
                 "warmup": args.warmup, "cost": args.cost, "saturate_args": args.saturate_args,
                 "work_dir": str(args.work_dir), "binary_source": str(binary_source),
                 "machine": machine_info(args.binary)})
    for name in args.models:
        for exporter in args.exporters:
            if exporter not in dm.SPECS[name]["exporters"]:
                continue
            path, info = export_step(args, res, name, exporter)
            if args.phase == "export":
                continue
            write_report(args, res)
            if path is None:
                continue
            outputs = []
            for tool in args.tools:
                if tool == "saturate_decode" and dm.SPECS[name]["kind"] != "decoder":
                    continue
                record = optimize_step(args, res, name, exporter, path, tool)
                if not record.get("error") and not record.get("skipped"):
                    outputs.append((tool, pathlib.Path(record["output"])))
                write_report(args, res)
            verify_step(args, res, name, exporter, path, outputs)
            write_report(args, res)
            for threads in args.threads:
                timing_step(args, res, name, exporter, path, outputs, threads)
    if args.phase == "all":
        res.add({"type": "end", "seconds": time.perf_counter() - started})
        write_report(args, res)
    log(f"done in {time.perf_counter() - started:.0f} s; results in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
