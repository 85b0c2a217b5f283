"""Converting a model's arithmetic to float16 after optimization (``saturate optimize
--precision fp16``), and the check that decides whether the converted model is written.

The conversion is ONNX Runtime's own (``onnxruntime.transformers.float16``, what its
documentation has users run after export): float32 initializers, values, Constant tensors and
Cast targets become float16; the graph's inputs and outputs keep their types when
``keep_io_types`` (a Cast at each); operators in ``kept_in_float32(...)`` stay in float32 with
Casts around them. Values past float16's range are clamped to it (65504) and tiny ones to its
smallest subnormal, as the converter does.

The check runs the converted model against the float32 original the optimized model came
from, on the same random inputs as verification, and compares each output directly: its
largest difference may be at most ``budget`` times the output's range (max |original|). The
converted model is written only when every output keeps to the budget.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Iterable, Optional

# Operators kept in float32 beside the converter's own list (DEFAULT_OP_BLOCK_LIST: classical ML
# operators, Range, TopK, CumSum, Min, Max, NonMaxSuppression, RoiAlign, Upsample): none by
# default; --keep-fp32 adds operator types.
SATURATE_KEPT_IN_FLOAT32: tuple[str, ...] = ()
# The default budget: 1% of each output's range (float16 keeps 11 significant bits; a 2-layer
# BERT converted loses about 1e-3 of the range).
DEFAULT_BUDGET = 1e-2
# Below this the comparison's absolute tolerance (outputs of range 0).
_ATOL = 1e-6


def kept_in_float32(extra: Iterable[str] = ()) -> list[str]:
    """The operator types the conversion leaves in float32: ONNX Runtime's converter's list,
    Saturate's, and ``extra``."""
    from onnxruntime.transformers.float16 import DEFAULT_OP_BLOCK_LIST

    kept = list(DEFAULT_OP_BLOCK_LIST) + list(SATURATE_KEPT_IN_FLOAT32)
    return kept + [op for op in extra if op not in kept]


def _sort_topologically(graph) -> None:
    """Puts the graph's nodes in an order where each follows the nodes it reads (the converter
    appends the Cast of each graph input last, which ONNX's checker refuses); among the nodes
    free to go the earlier in the file goes first."""
    import heapq

    nodes = list(graph.node)
    producer = {name: i for i, node in enumerate(nodes) for name in node.output if name}
    readers = [[] for _ in nodes]
    waiting = [0] * len(nodes)
    for i, node in enumerate(nodes):
        needs = {producer[name] for name in node.input if name in producer} - {i}
        for before in needs:
            readers[before].append(i)
        waiting[i] = len(needs)
    ready = [i for i, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for reader in readers[i]:
            waiting[reader] -= 1
            if waiting[reader] == 0:
                heapq.heappush(ready, reader)
    if len(order) != len(nodes):
        raise ValueError("the converted graph has a cycle")
    sorted_nodes = [type(nodes[i])() for i in order]
    for copy, i in zip(sorted_nodes, order):
        copy.CopyFrom(nodes[i])
    del graph.node[:]
    graph.node.extend(sorted_nodes)


def convert(model, keep_io_types: bool = True, keep_fp32: Iterable[str] = ()):
    """The float16 copy of a ModelProto (the argument is not changed), its nodes in
    topological order."""
    from onnxruntime.transformers.float16 import convert_float_to_float16

    copy = type(model)()
    copy.CopyFrom(model)
    converted = convert_float_to_float16(copy, keep_io_types=keep_io_types,
                                         op_block_list=kept_in_float32(keep_fp32))
    _sort_topologically(converted.graph)
    return converted


def convert_and_check(model, original, out_path: str, *, keep_io_types: bool = True,
                      keep_fp32: Iterable[str] = (), budget: float = DEFAULT_BUDGET,
                      input_shapes=None, required=None, seed: int = 0) -> dict:
    """Converts ``model`` (a path, bytes or ModelProto), writes the float16 model to
    ``out_path`` and compares it with ``original`` (the float32 model, path or bytes). Returns
    {"ok", "budget", "check" (onnx_check.CheckResult as a dict), "converted_nodes",
    "float32_nodes", "kept_in_float32"}."""
    import onnx

    from saturate import onnx_check

    if not 0 < budget < 1:
        raise ValueError(f"the precision budget must lie between 0 and 1, got {budget}")
    proto = onnx_check._load_model(model)
    converted = convert(proto, keep_io_types, keep_fp32)
    onnx.save(converted, out_path)
    try:
        onnx_check._session(out_path)  # the converter can write models that do not load
    except Exception as error:
        detail = str(error).strip().splitlines()
        raise ValueError("ONNX Runtime's float16 converter wrote a model ONNX Runtime cannot "
                         f"load ({detail[0] if detail else type(error).__name__}); the "
                         "operators kept in float32 (--keep-fp32) may be why") from error
    check = onnx_check.compare_models(original, out_path, seed=seed, trials=2, rtol=budget,
                                      atol=_ATOL, precision="float32",
                                      input_shapes=input_shapes, required=required)
    kept = kept_in_float32(keep_fp32)
    return {
        "ok": bool(check.ok),
        "budget": budget,
        "check": asdict(check),
        "converted_nodes": sum(1 for node in converted.graph.node if node.op_type != "Cast"),
        "float32_nodes": sum(1 for node in converted.graph.node if node.op_type in kept),
        "kept_in_float32": kept,
    }


def answer(request: dict, model, original) -> dict:
    """The helper's answer to {"convert": {...}} (ort_helper.py)."""
    precision = request.get("precision", "fp16")
    if precision != "fp16":
        raise ValueError(f"precision {precision!r}: only fp16 is converted")
    budget = request.get("budget")
    required: Optional[int] = request.get("required_input_shapes")
    return convert_and_check(model, original, str(request["out"]),
                             keep_io_types=bool(request.get("keep_io_types", True)),
                             keep_fp32=list(request.get("keep_fp32") or []),
                             budget=DEFAULT_BUDGET if budget is None else float(budget),
                             input_shapes=request.get("input_shapes"), required=required)
