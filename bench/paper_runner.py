"""Runs `saturate optimize` for bench/paper.py and verifies the graphs it wrote.

A Runner runs a configuration (model, settings) as often as asked, as subprocesses with a timeout,
reuses one that another table already ran, and keeps each distinct optimized graph; verify_all
then checks every graph once, in parallel processes (paper.py --verify-graph, which calls
verify_graph_main). machine() records what the measurements ran on.
"""
import concurrent.futures
import datetime
import hashlib
import json
import os
import pathlib
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from paper_settings import describe

REPO = pathlib.Path(__file__).resolve().parents[1]
# The entry point: its hidden --verify-graph option runs verify_graph_main in a process of its
# own, so that verifications run in parallel and a slow one can be ended at its timeout.
PAPER_SCRIPT = pathlib.Path(__file__).resolve().with_name("paper.py")

# optimize --verify's tolerance (src/driver/verification.h), for --verify-graph.
VERIFY_TOLERANCE = 1e-6

EQSAT_TIMINGS = ("explore_seconds", "extract_seconds", "optimizer_seconds",
                 "cycle_filter_seconds", "wall_seconds")
TASO_TIMINGS = ("total_seconds", "seconds_to_best", "wall_seconds")


def prune(report):
    """Drops the bulky per-rule lists from a report, keeps per-iteration totals."""
    report = dict(report)
    report.pop("rules", None)
    exploration = report.pop("exploration", None)
    if isinstance(exploration, dict):
        slim = {k: v for k, v in exploration.items() if not isinstance(v, (list, dict))}
        slim["iterations"] = [{k: v for k, v in it.items() if k != "rules"}
                              for it in exploration.get("iteration_stats", [])]
        report["exploration"] = slim
    if isinstance(report.get("best_path"), list) and len(report["best_path"]) > 0:
        path = report["best_path"]
        counts = {}
        for rule in path:
            counts[rule] = counts.get(rule, 0) + 1
        report["best_path_counts"] = counts
    return report


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


class Runner:
    """Runs configurations; keeps each distinct optimized graph for verification afterwards."""

    def __init__(self, binary, settings, log, work_dir):
        self.binary = binary
        self.settings = settings
        self.log = log
        self.jobs = {}
        self.graphs = {}  # "model|sha256" -> {"model", "hash", "path", "jobs": [keys]}
        self.work_dir = pathlib.Path(work_dir)
        self.started = time.monotonic()
        self.count = 0

    def elapsed(self):
        return time.monotonic() - self.started

    def command(self, model, cfg, report_path, graph_path=None, verify=False):
        s = self.settings
        cmd = [str(self.binary), "optimize", model]
        if s["reduced"]:
            cmd.append("--reduced")
        if cfg["search"] == "taso":
            cmd += ["--search", "taso", "--alpha", str(s["alpha"]), "--budget", str(s["budget"])]
        else:
            cmd += ["--node-limit", str(s["node_limit"]), "--iter-limit", str(s["iter_limit"]),
                    "--k-multi", str(cfg["k_multi"]), "--cycle-filter", cfg["cycle_filter"],
                    "--extract", cfg["extract"],
                    # TENSAT's setting: only the node limit bounds growth.
                    "--no-budget"]
            if cfg["extract"] == "ilp":
                cmd += ["--ilp-cycles", cfg["ilp_cycles"],
                        "--ilp-time-limit", str(cfg["ilp_time_limit"])]
        cmd += ["--json", str(report_path)]
        if graph_path:
            cmd += ["-o", str(graph_path)]
        if verify:
            cmd.append("--verify")
        return cmd

    def run_once(self, model, cfg, graph_path=None, verify=False):
        with tempfile.TemporaryDirectory(prefix="paper-") as tmp:
            report_path = pathlib.Path(tmp) / "report.json"
            cmd = self.command(model, cfg, report_path, graph_path, verify)
            timeout = self.settings["job_timeout"] + 3 * cfg.get("ilp_time_limit", 0.0)
            started = time.monotonic()
            code, out, err = run_process(cmd, timeout, cwd=tmp)
            wall = time.monotonic() - started
            if code is None:
                return {"error": f"timeout after {timeout:.0f} s", "wall_seconds": wall}, cmd
            if code != 0 or not report_path.exists():
                tail = (err or out or "").strip().splitlines()[-5:]
                return {"error": f"exit status {code}: " + " | ".join(tail),
                        "wall_seconds": wall}, cmd
            report = json.loads(report_path.read_text())
            report["wall_seconds"] = wall
            if cfg["search"] != "taso":
                report["optimizer_seconds"] = (report.get("explore_seconds", 0.0)
                                               + report.get("extract_seconds", 0.0))
            return report, cmd

    def get(self, model, cfg, runs):
        """Runs (or reuses) one configuration; returns its record."""
        key = model + "|" + "|".join(f"{k}={cfg[k]}" for k in sorted(cfg))
        if key in self.jobs:
            job = self.jobs[key]
            if len(job["runs"]) >= runs or job.get("error") or job.get("no_repeat"):
                return job
        else:
            job = {"key": key, "model": model, "config": dict(cfg), "runs": [], "report": None,
                   "error": None, "no_repeat": None, "graph": None}
            self.jobs[key] = job
        timing_fields = TASO_TIMINGS if cfg["search"] == "taso" else EQSAT_TIMINGS
        s = self.settings
        while len(job["runs"]) < runs:
            index = len(job["runs"])
            if index > 0 and self.elapsed() > s["soft_deadline_seconds"]:
                job["no_repeat"] = "soft deadline reached"
                break
            self.count += 1
            first = index == 0
            graph_path = self.work_dir / f"graph-{self.count}.sxp" if first else None
            self.log(f"[{self.elapsed():6.0f} s] {model:<13} {describe(cfg):<38} "
                     f"run {index + 1}/{runs} ...")
            report, cmd = self.run_once(model, cfg, graph_path,
                                        verify=first and s["verify_mode"] == "cli")
            if "error" in report:
                job["error"] = report["error"]
                job["command"] = " ".join(cmd)
                self.log(f"    FAILED: {report['error']}")
                break
            if first:
                job["report"] = prune(report)
                # The command to reproduce this configuration, with the CLI's own verification.
                job["command"] = " ".join(self.command(model, cfg, "report.json", verify=True))
                self.register_graph(job, graph_path)
            job["runs"].append({f: report.get(f) for f in timing_fields + ("optimized_cost",)})
            self.log("    " + summary_line(report, cfg))
            if (cfg["search"] != "taso" and cfg["extract"] == "ilp"
                    and not report.get("ilp_optimal")
                    and report.get("extract_seconds", 0.0) >= 0.9 * cfg["ilp_time_limit"]):
                job["no_repeat"] = "ILP stopped at its time limit"
                break
            if runs > 1 and report["wall_seconds"] > s["slow_seconds"]:
                job["no_repeat"] = (f"one run took {report['wall_seconds']:.0f} s "
                                    f"(> {s['slow_seconds']:g} s)")
                break
        if job["runs"]:
            job["timing"] = {f: stats([r.get(f) for r in job["runs"]]) for f in timing_fields}
            costs = {round(r["optimized_cost"], 9) for r in job["runs"]
                     if r.get("optimized_cost") is not None}
            job["cost_varies"] = len(costs) > 1
        return job

    def register_graph(self, job, graph_path):
        if not graph_path or not graph_path.exists():
            return
        digest = hashlib.sha256(graph_path.read_bytes()).hexdigest()
        gkey = f"{job['model']}|{digest}"
        job["graph"] = gkey
        if gkey not in self.graphs:
            kept = self.work_dir / f"{job['model']}-{digest[:16]}.sxp"
            graph_path.replace(kept)
            self.graphs[gkey] = {"model": job["model"], "hash": digest, "path": str(kept),
                                 "jobs": []}
        else:
            graph_path.unlink()
        self.graphs[gkey]["jobs"].append(job["key"])

    def verify_all(self, workers):
        """Checks every distinct optimized graph against its original (the same comparison and
        tolerance as `optimize --verify`), `workers` at a time; records the verdict on every
        configuration that produced the graph."""
        def expense(graph):  # the original's analytic cost: a proxy for interpreter time
            rep = self.jobs[graph["jobs"][0]]["report"] or {}
            return -(rep.get("original_cost") or 0.0)

        todo = sorted(self.graphs.values(), key=expense)
        if not todo:
            return {}
        self.log(f"[{self.elapsed():6.0f} s] verifying {len(todo)} distinct optimized graphs "
                 f"({workers} at a time) ...")
        verdicts = {}

        def check(graph):
            cmd = [sys.executable, str(PAPER_SCRIPT), "--verify-graph",
                   graph["model"], graph["path"]]
            if self.settings["reduced"]:
                cmd.append("--reduced")
            started = time.monotonic()
            code, out, err = run_process(cmd, self.settings["verify_timeout"])
            seconds = time.monotonic() - started
            if code is None:
                return {"verified": None, "error": "verification timed out", "seconds": seconds}
            try:
                result = json.loads(out.strip().splitlines()[-1])
            except (ValueError, IndexError):
                return {"verified": None, "seconds": seconds,
                        "error": f"exit status {code}: " + (err or out).strip()[-300:]}
            result["seconds"] = seconds
            return result

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = {pool.submit(check, g): g for g in todo}
            for future in concurrent.futures.as_completed(futures):
                graph = futures[future]
                result = future.result()
                gkey = f"{graph['model']}|{graph['hash']}"
                result["jobs"] = graph["jobs"]
                verdicts[gkey] = result
                self.log(f"[{self.elapsed():6.0f} s] verify {graph['model']:<13} "
                         f"{graph['hash'][:12]}: verified {result.get('verified')}"
                         + ("" if result.get("outputs_finite", True) else " (outputs not finite)")
                         + f", {result['seconds']:.1f} s, {len(graph['jobs'])} configurations"
                         + (f" ERROR {result['error']}" if result.get("error") else ""))
                for key in graph["jobs"]:
                    rep = self.jobs[key]["report"]
                    for field in ("verified", "max_abs_error", "max_relative_error",
                                  "outputs_finite"):
                        rep[field] = result.get(field)
                    rep["verified_graph"] = gkey
        return verdicts


def run_process(cmd, timeout, cwd=None):
    """Runs cmd in a new process group; on timeout ends that group (the ILP solver's children too).
    Returns (exit status or None on timeout, stdout, stderr)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=cwd)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return None, out, err
    return proc.returncode, out, err


def verify_graph_main(model, path, reduced):
    """--verify-graph: compares a written optimized graph with the bundled original, as
    `optimize --verify` does (runtime::compare_graphs, float64, seed 0, relative error <= 1e-6)."""
    sys.path.insert(0, str(REPO / "python"))
    import saturate  # noqa: E402
    if not getattr(saturate, "HAVE_EXTENSION", False):
        print(json.dumps({"verified": None, "error": "saturate extension not built"}))
        return 3
    result = saturate.compare(saturate.model(model, reduced=reduced), saturate.load(path))
    verified = result["max_relative_error"] <= VERIFY_TOLERANCE
    print(json.dumps({"verified": verified, "max_abs_error": result["max_abs_error"],
                      "max_relative_error": result["max_relative_error"],
                      "outputs_finite": result["finite"], "worst_output": result["worst_output"]}))
    return 0


def extension_available():
    code, out, _ = run_process([sys.executable, "-c", "import sys; sys.path.insert(0, %r); "
                                "import saturate; print(saturate.HAVE_EXTENSION)"
                                % str(REPO / "python")], 60)
    return code == 0 and out.strip() == "True"


def summary_line(report, cfg):
    verified = (f", verified {report['verified']}" if report.get("verified") is not None else "")
    if cfg["search"] == "taso":
        return (f"speedup {report['speedup_percent']:.2f}%, total {report['total_seconds']:.3f} s, "
                f"best at {report['seconds_to_best']:.3f} s{verified}")
    return (f"speedup {report['speedup_percent']:.2f}%, {report['egraph_nodes']} e-nodes, "
            f"explore {report['explore_seconds']:.3f} s, extract {report['extract_seconds']:.3f} s"
            f" ({report.get('extraction_status')}){verified}")


def machine(binary=None):
    cpu = "unknown"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    os_name = platform.platform()
    try:
        for line in pathlib.Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    mem = None
    try:
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    built = None
    if binary and pathlib.Path(binary).exists():
        built = datetime.datetime.fromtimestamp(
            pathlib.Path(binary).stat().st_mtime).astimezone().isoformat(timespec="seconds")
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem, "os": os_name,
            "python": platform.python_version(), "commit": commit, "binary_built": built}
