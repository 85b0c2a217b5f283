"""What a bench/paper.py run measures: its settings and the optimizer configurations.

settings_for turns the command line into the settings (one dict, stored in the raw results and
printed in the report); eqsat_cfg and TASO_CFG build the configurations the plan asks the runner
for, and describe names one in the log and in the report.
"""
from paper_published import EXTRA_MODELS, PAPER_MODELS


def settings_for(args):
    """The settings of a run: one dict, stored in the JSON and printed in the report."""
    quick = args.quick
    s = {
        "mode": "quick" if quick else "full",
        "reduced": quick,
        "runs": args.runs if args.runs is not None else (1 if quick else 5),
        "sweep_runs": None,
        "node_limit": 50000, "iter_limit": 15, "k_multi": 1, "cycle_filter": "efficient",
        "ilp_time_limit": args.ilp_time_limit if args.ilp_time_limit is not None
        else (10.0 if quick else 60.0),
        "sweep_ilp_time_limit": args.sweep_ilp_time_limit if args.sweep_ilp_time_limit is not None
        else (5.0 if quick else 15.0),
        "alpha": 1.05,
        "budget": args.budget if args.budget is not None else (20 if quick else 100),
        "models": [m for m in (args.models.split(",") if args.models
                               else PAPER_MODELS + EXTRA_MODELS)],
        "kmulti_sweep": [0, 1, 2] if quick else [0, 1, 2, 3],
        # Figure 6 extracts with greedy everywhere and with the ILP (sweep limit) where listed.
        "kmulti_ilp_models": ["bert", "squeezenet"] if quick else None,  # None: every model
        "table4_models": ["bert"] if quick else ["bert", "nasrnn", "nasnet_a"],
        "table4_kmulti": [1] if quick else [1, 2],
        "table5_models": ["bert", "nasrnn"] if quick else None,  # None: every model
        "table5_kmulti": [1, 2],
        "job_timeout": args.job_timeout if args.job_timeout is not None
        else (60.0 if quick else 600.0),
        "slow_seconds": args.slow_seconds if args.slow_seconds is not None else 15.0,
        "soft_deadline_seconds": args.soft_deadline_minutes * 60.0
        if args.soft_deadline_minutes is not None else (90.0 if quick else 20 * 60.0),
        "verify_mode": args.verify_mode,
        "verify_jobs": args.verify_jobs,
        "verify_timeout": 120.0 if quick else 900.0,
    }
    s["sweep_runs"] = (args.sweep_runs if args.sweep_runs is not None
                       else min(s["runs"], 3))
    if s["kmulti_ilp_models"] is None:
        s["kmulti_ilp_models"] = list(s["models"])
    if s["table5_models"] is None:
        s["table5_models"] = list(s["models"])
    for key in ("table4_models", "table5_models", "kmulti_ilp_models"):
        s[key] = [m for m in s[key] if m in s["models"]]
    return s


def eqsat_cfg(k_multi=1, cycle_filter="efficient", extract="ilp", ilp_cycles="none",
              ilp_time_limit=60.0):
    cfg = {"search": "eqsat", "k_multi": k_multi, "cycle_filter": cycle_filter,
           "extract": extract}
    if extract == "ilp":
        cfg["ilp_cycles"] = ilp_cycles
        cfg["ilp_time_limit"] = float(ilp_time_limit)
    return cfg


TASO_CFG = {"search": "taso"}


def describe(cfg):
    if cfg["search"] == "taso":
        return "taso"
    text = f"k={cfg['k_multi']} {cfg['cycle_filter']} {cfg['extract']}"
    if cfg["extract"] == "ilp":
        text += f" cycles={cfg['ilp_cycles']} {cfg['ilp_time_limit']:g}s"
    return text

