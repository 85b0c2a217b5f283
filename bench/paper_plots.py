"""Plots for bench/paper.py: Figure 4 (speedup), Figure 5 (optimizer time), Figure 6 (k_multi).

write_plots(data, directory) reads paper.py's raw results and writes figure4_speedup.png,
figure5_time.png and figure6_kmulti.png; it returns {"figure4": file name, ...}.
"""
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from paper_published import LABELS, PAPER_T1  # noqa: E402
from paper_report import View, best_over_k  # noqa: E402

SAT_COLOR, TASO_COLOR, BEST_COLOR = "#1f77b4", "#ff7f0e", "#2ca02c"


def _job(data, key):
    return data["jobs"].get(key) if key else None


def _rep(job):
    return job.get("report") if job else None


def _timing(job, field):
    if not job or not job.get("timing") or not job["timing"].get(field):
        return None
    return job["timing"][field]


def _bar_with_range(ax, xs, stats, width, color, label, hatch=None):
    med = [st["median"] if st else 0 for st in stats]
    low = [st["median"] - st["min"] if st else 0 for st in stats]
    high = [st["max"] - st["median"] if st else 0 for st in stats]
    ax.bar(xs, med, width, color=color, label=label, hatch=hatch,
           yerr=[low, high], capsize=2, error_kw={"elinewidth": 0.8})


def figure4(data, path):
    models = data["settings"]["models"]
    plan = data["plan"]
    sat = [(_rep(_job(data, plan["table1"][m]["saturate"])) or {}).get("speedup_percent", 0)
           for m in models]
    taso = [(_rep(_job(data, plan["table1"][m]["taso"])) or {}).get("speedup_percent", 0)
            for m in models]
    best_k = best_over_k(View(data), models, data["settings"])
    best = [best_k[m]["speedup"] if m in best_k else 0 for m in models]
    paper = [m for m in models if m in PAPER_T1]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2),
                             gridspec_kw={"width_ratios": [len(models), max(len(paper), 1)]})
    ax = axes[0]
    xs = range(len(models))
    width = 0.27
    ax.bar([x - width for x in xs], taso, width, color=TASO_COLOR, label="TASO (ours)")
    ax.bar(list(xs), sat, width, color=SAT_COLOR, label="Saturate k_multi=1")
    ax.bar([x + width for x in xs], best, width, color=BEST_COLOR, label="Saturate best k_multi")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([LABELS.get(m, m) for m in models], rotation=30, ha="right")
    ax.set_ylabel("speedup % (analytic cost model)")
    ax.set_title("This reproduction" + (" (reduced models)" if data["settings"]["reduced"] else ""))
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax = axes[1]
    xs = range(len(paper))
    ax.bar([x - 0.2 for x in xs], [PAPER_T1[m][2] for m in paper], 0.4, color=TASO_COLOR,
           label="TASO")
    ax.bar([x + 0.2 for x in xs], [PAPER_T1[m][3] for m in paper], 0.4, color=SAT_COLOR,
           label="TENSAT")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([LABELS.get(m, m) for m in paper], rotation=30, ha="right")
    ax.set_ylabel("speedup % (cuDNN, T4)")
    ax.set_title("Paper (Table 1)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure5(data, path):
    models = data["settings"]["models"]
    plan = data["plan"]
    sat = [_timing(_job(data, plan["table1"][m]["saturate"]), "optimizer_seconds") for m in models]
    total = [_timing(_job(data, plan["table1"][m]["taso"]), "total_seconds") for m in models]
    best = [_timing(_job(data, plan["table1"][m]["taso"]), "seconds_to_best") for m in models]
    greedy = [_timing(_job(data, plan["table3"][m]["greedy"]), "optimizer_seconds")
              for m in models]
    fig, ax = plt.subplots(figsize=(12, 4.4))
    xs = range(len(models))
    width = 0.2
    _bar_with_range(ax, [x - 1.5 * width for x in xs], total, width, TASO_COLOR, "TASO total")
    _bar_with_range(ax, [x - 0.5 * width for x in xs], best, width, "#ffbb78", "TASO best")
    _bar_with_range(ax, [x + 0.5 * width for x in xs], sat, width, SAT_COLOR,
                    "Saturate (ILP, k_multi=1)")
    _bar_with_range(ax, [x + 1.5 * width for x in xs], greedy, width, "#aec7e8",
                    "Saturate (greedy, k_multi=1)")
    paper_x = [x for x, m in zip(xs, models) if m in PAPER_T1]
    ax.scatter([x - 1.5 * width for x in paper_x],
               [PAPER_T1[m][0] for m in models if m in PAPER_T1], marker="_", s=200,
               color="black", label="paper TASO total")
    ax.scatter([x + 0.5 * width for x in paper_x],
               [PAPER_T1[m][1] for m in models if m in PAPER_T1], marker="x", s=30,
               color="black", label="paper TENSAT")
    ax.set_yscale("log")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([LABELS.get(m, m) for m in models], rotation=30, ha="right")
    ax.set_ylabel("optimizer time (s, log)")
    ax.set_title("Optimizer time: median, bars show min–max"
                 + (" (reduced models)" if data["settings"]["reduced"] else ""))
    ax.legend(fontsize=8, ncol=3)
    ax.grid(axis="y", alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure6(data, path):
    s = data["settings"]
    models = s["models"]
    ks = s["kmulti_sweep"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    cmap = plt.get_cmap("tab10")
    for i, m in enumerate(models):
        speed, time_, nodes, timed_out = [], [], [], []
        for k in ks:
            entry = data["plan"]["figure6"].get(f"{m}|{k}", {})
            use = "ilp" if entry.get("ilp") and _rep(_job(data, entry["ilp"])) else "greedy"
            job = _job(data, entry.get(use))
            r = _rep(job)
            st = _timing(job, "optimizer_seconds")
            speed.append(r["speedup_percent"] if r else None)
            time_.append(st["median"] if st else None)
            nodes.append(r["egraph_nodes"] if r else None)
            timed_out.append(bool(r and use == "ilp" and not r.get("ilp_optimal")))
        color = cmap(i % 10)
        label = LABELS.get(m, m) + ("" if m in s["kmulti_ilp_models"] else " (greedy)")
        axes[0].plot(ks, speed, marker="o", color=color, label=label)
        axes[1].plot(ks, time_, marker="o", color=color, label=label)
        axes[2].plot(ks, nodes, marker="o", color=color, label=label)
        for k, t, out in zip(ks, time_, timed_out):
            if out and t is not None:
                axes[1].scatter([k], [t], marker="s", facecolors="none", edgecolors="red", s=80)
    extract = "ILP" if s["kmulti_ilp_models"] else "greedy"
    axes[0].set_title(f"speedup % ({extract} extraction, {s['sweep_ilp_time_limit']:g} s limit)"
                      if extract == "ILP" else "speedup % (greedy extraction)")
    axes[1].set_title("optimizer time (s, log); red box: ILP at its limit")
    axes[2].set_title("final e-nodes (log)")
    axes[1].set_yscale("log")
    axes[2].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("k_multi")
        ax.set_xticks(ks)
        ax.grid(alpha=0.3, which="both")
    axes[2].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_plots(data, directory):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, fn, file in (("figure4", figure4, "figure4_speedup.png"),
                           ("figure5", figure5, "figure5_time.png"),
                           ("figure6", figure6, "figure6_kmulti.png")):
        fn(data, directory / file)
        made[name] = file
    return made
