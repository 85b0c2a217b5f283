"""Which configurations bench/paper.py runs for which model, table by table.

measure asks the runner for every configuration of Table 1, Tables 3-5 and Figure 6, the
headline first (the runner runs a configuration shared between tables once), and returns the
plan: per table and model (or "model|k_multi"), the job keys of its runs, which the report and
the plots look up in the raw results.
"""
from paper_settings import TASO_CFG, eqsat_cfg


def measure(runner, s):
    models = s["models"]
    results = {"table1": {}, "table3": {}, "figure6": {}, "table4": {}, "table5": {}}
    main_cfg = eqsat_cfg(ilp_time_limit=s["ilp_time_limit"])
    greedy_cfg = eqsat_cfg(extract="greedy")
    # Table 1 / Figures 4-5 first: the headline.
    for model in models:
        results["table1"][model] = {"saturate": runner.get(model, main_cfg, s["runs"])["key"],
                                    "taso": runner.get(model, TASO_CFG, s["runs"])["key"]}
    # Table 3: greedy vs ILP at k_multi 1 (the ILP run is Table 1's).
    for model in models:
        results["table3"][model] = {"greedy": runner.get(model, greedy_cfg, s["runs"])["key"],
                                    "ilp": results["table1"][model]["saturate"]}
    # Table 5: vanilla vs efficient filtering, exploration time (greedy extraction on both).
    for k in s["table5_kmulti"]:
        for model in s["table5_models"]:
            eff = runner.get(model, eqsat_cfg(k_multi=k, extract="greedy"),
                             s["runs"] if k == 1 else s["sweep_runs"])
            van = runner.get(model, eqsat_cfg(k_multi=k, cycle_filter="vanilla",
                                              extract="greedy"), s["sweep_runs"])
            results["table5"][f"{model}|{k}"] = {"vanilla": van["key"], "efficient": eff["key"]}
    # Figure 6: k_multi sweep; greedy everywhere, ILP (sweep limit) where planned.
    for k in s["kmulti_sweep"]:
        for model in models:
            entry = {"greedy": runner.get(model, eqsat_cfg(k_multi=k, extract="greedy"),
                                          s["sweep_runs"])["key"]}
            if model in s["kmulti_ilp_models"]:
                entry["ilp"] = runner.get(model, eqsat_cfg(
                    k_multi=k, ilp_time_limit=s["sweep_ilp_time_limit"]), s["sweep_runs"])["key"]
            results["figure6"][f"{model}|{k}"] = entry
    # Table 4: ILP cycle constraints (real, int) vs none, same filtered e-graph, sweep limit.
    for k in s["table4_kmulti"]:
        for model in s["table4_models"]:
            entry = {}
            for cycles in ("none", "real", "int"):
                entry[cycles] = runner.get(model, eqsat_cfg(
                    k_multi=k, ilp_cycles=cycles, ilp_time_limit=s["sweep_ilp_time_limit"]),
                    s["sweep_runs"])["key"]
            results["table4"][f"{model}|{k}"] = entry
    return results
