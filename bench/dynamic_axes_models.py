#!/usr/bin/env python3
"""Models, shapes and feeds of bench/dynamic_axes.py (exports with DYNAMIC axes).

The exports reuse the fixtures' conventions by importing their scripts by path, nothing is
copied: ``tests/fixtures/dynamic/export_dynamic.py`` (``export`` with ``dynamic_axes`` for the
TorchScript exporter and ``dynamic_shapes`` for the dynamo exporter, the decoder-with-past
wrapper ``DecoderWithPast``, the dim names batch / sequence and batch_size / sequence_length /
past_sequence_length / total_sequence_length) and ``tests/fixtures/exporters/export_models.py``
(the full-size configurations ``make_bert_base`` and ``make_gpt2_small``, the seed and the weight
perturbation).  Random weights: no model hub.

Models (``--small`` picks the fixtures' tiny configurations instead):

* ``bert_base``: BertModel, 12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522,
  default (sdpa) attention, no pooler (``em.make_bert_base``); inputs ``input_ids``,
  ``attention_mask`` int64 [batch, sequence] -> ``last_hidden_state``.  Small: ``em.make_bert``
  (2 layers, hidden 64, 4 heads).
* ``gpt2_past``: GPT2Model ``gpt2`` default size (124M: 12 layers, n_embd 768, 12 heads,
  n_positions 1024, vocab 50257; ``em.make_gpt2_small``) called with a key-value cache through
  ``ed.DecoderWithPast``: ``input_ids`` [batch_size, sequence_length], ``attention_mask``
  [batch_size, total_sequence_length], ``past_{key,value}_<i>`` [batch_size, 12,
  past_sequence_length, 64] -> ``last_hidden_state`` and ``present_{key,value}_<i>``.  Small:
  ``ed.make_gpt2_past`` (2 layers, hidden 64, 4 heads, n_positions 64).

Run as a script it exports one model in its own process (so that PyTorch's memory and threads
are gone before anything is timed):

    /root/venv-export/bin/python bench/dynamic_axes_models.py export MODEL EXPORTER OUT.onnx \\
        STATUS.json [--small]
"""
from __future__ import annotations

import json
import pathlib
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"

# kind: encoder (batch, sequence) or decoder (batch_size, sequence_length, past_sequence_length;
# total_sequence_length = past + new).  ort: onnxruntime.transformers.optimizer's model type,
# with num_heads and hidden_size.  shapes: the sizes timed; verify_shape: the one shape at which
# every output is compared with the original (odd sizes, a padded mask row for the encoder).
SPECS = {
    "bert_base": {
        "kind": "encoder", "exporters": ["torchscript", "dynamo"],
        "full": {"vocab": 30522, "ort": ("bert", 12, 768),
                 "shapes": [{"batch": 1, "sequence": 64}, {"batch": 1, "sequence": 128},
                            {"batch": 4, "sequence": 128}],
                 "verify_shape": {"batch": 2, "sequence": 37}},
        "small": {"vocab": 1000, "ort": ("bert", 4, 64),
                  "shapes": [{"batch": 1, "sequence": 16}],
                  "verify_shape": {"batch": 2, "sequence": 7}},
    },
    "gpt2_past": {
        "kind": "decoder", "exporters": ["torchscript", "dynamo"],
        "full": {"vocab": 50257, "ort": ("gpt2", 12, 768),
                 "shapes": [{"batch_size": 1, "sequence_length": 1, "past_sequence_length": p}
                            for p in (0, 127, 511)],
                 "verify_shape": {"batch_size": 2, "sequence_length": 3,
                                  "past_sequence_length": 37},
                 # The profiles of the optional "saturate_decode" variant: the timed decode
                 # steps (past 0 is not a size a measured cost model can run).
                 "decode_profiles": [{"batch_size": 1, "sequence_length": 1,
                                      "past_sequence_length": p} for p in (127, 511)]},
        "small": {"vocab": 1000, "ort": ("gpt2", 4, 64),
                  "shapes": [{"batch_size": 1, "sequence_length": 1,
                              "past_sequence_length": 16}],
                  "verify_shape": {"batch_size": 2, "sequence_length": 3,
                                   "past_sequence_length": 5},
                  # n_positions is 64 in the tiny GPT-2: Saturate's default profile (lengths
                  # 128) indexes past its position table, so the small run always names one.
                  "profiles": [{"batch_size": 1, "sequence_length": 1,
                                "past_sequence_length": 16}],
                  "decode_profiles": [{"batch_size": 1, "sequence_length": 1,
                                       "past_sequence_length": 16}]},
    },
    # Optional (not in the default --models): the Llama-style decoder of the peer benchmark
    # (export_models.make_llama_4l's sizes: 4 layers, hidden 512, 8 heads, 4 key/value heads,
    # intermediate 1376, vocab 32000) as LlamaForCausalLM with a key-value cache, through
    # export_kv_cache.DecoderStep (use_medium_size(), then vocab 32000, 2048 positions); the
    # dynamo export at opset 18 like the fixture llama_past.dynamo.onnx.  ONNX Runtime's
    # transformers optimizer has no Llama model type.
    "llama_past": {
        "kind": "decoder", "exporters": ["torchscript", "dynamo"], "dynamo_opset": 18,
        "full": {"vocab": 32000, "ort": None,
                 "shapes": [{"batch_size": 1, "sequence_length": 1, "past_sequence_length": p}
                            for p in (0, 127, 511)],
                 "verify_shape": {"batch_size": 2, "sequence_length": 3,
                                  "past_sequence_length": 37},
                 "decode_profiles": [{"batch_size": 1, "sequence_length": 1,
                                      "past_sequence_length": p} for p in (127, 511)]},
        "small": {"vocab": 256, "ort": None,
                  "shapes": [{"batch_size": 1, "sequence_length": 1,
                              "past_sequence_length": 16}],
                  "verify_shape": {"batch_size": 2, "sequence_length": 3,
                                   "past_sequence_length": 5},
                  "profiles": [{"batch_size": 1, "sequence_length": 1,
                                "past_sequence_length": 16}],
                  "decode_profiles": [{"batch_size": 1, "sequence_length": 1,
                                       "past_sequence_length": 16}]},
    },
    # ViT-B/16 (torchvision vit_b_16, 224x224) with a dynamic batch; ONNX Runtime's transformers
    # optimizer's 'vit' model type.  small: the fixture's 32x32 ViT (export_models.make_vit).
    "vit_b16": {
        "kind": ("image", 224), "exporters": ["torchscript", "dynamo"],
        "full": {"vocab": 0, "ort": ("vit", 12, 768),
                 "shapes": [{"batch": 1}, {"batch": 8}],
                 "verify_shape": {"batch": 3}},
        "small": {"vocab": 0, "ort": ("vit", 4, 64), "image": 32,
                  "shapes": [{"batch": 1}, {"batch": 4}],
                  "verify_shape": {"batch": 3}},
    },
}
DEFAULT_MODELS = ["bert_base", "gpt2_past"]


def binding(shape):
    """All dim names of a shape: a decoder's total_sequence_length is past + new."""
    b = dict(shape)
    if "past_sequence_length" in b:
        b["total_sequence_length"] = b["past_sequence_length"] + b["sequence_length"]
    return b


def shape_label(shape):
    if "past_sequence_length" in shape:
        return (f"b{shape['batch_size']} s{shape['sequence_length']} "
                f"past{shape['past_sequence_length']}")
    if "sequence" not in shape:
        return f"b{shape['batch']}"
    return f"b{shape['batch']} s{shape['sequence']}"


def profile_arg(shape):
    """--profile NAME=SIZE,... for Saturate (total_sequence_length named too: the dynamo
    exporter gives the mask a dim of its own, with no relation to past + new)."""
    return ",".join(f"{k}={v}" for k, v in binding(shape).items())


def input_dims(model_path):
    """[(name, elem_type, [dim_param or dim_value])] of an ONNX model's graph inputs."""
    import onnx

    m = onnx.load(str(model_path), load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    out = []
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        out.append((vi.name, t.elem_type,
                    [d.dim_param if d.dim_param else d.dim_value for d in t.shape.dim]))
    return out


def dynamic_dims(model_path):
    """{input name: [dim_params]} of the inputs (and outputs) with symbolic dims."""
    import onnx

    m = onnx.load(str(model_path), load_external_data=False)
    res = {}
    for vi in list(m.graph.input) + list(m.graph.output):
        names = [d.dim_param for d in vi.type.tensor_type.shape.dim if d.dim_param]
        if names:
            res[vi.name] = names
    return res


def make_feeds(inputs, shape, vocab, kind, seed):
    """Named numpy inputs for one shape assignment, from the original's input dims."""
    import onnx

    rng = np.random.default_rng(seed)
    b = binding(shape)
    feeds = {}
    for name, elem, dims in inputs:
        sizes = []
        for d in dims:
            if isinstance(d, str):
                if d not in b:
                    raise ValueError(f"input {name}: dim '{d}' not in the shape {b}")
                sizes.append(b[d])
            else:
                sizes.append(int(d))
        if elem == onnx.TensorProto.INT64 and "mask" in name:
            mask = np.ones(sizes, dtype=np.int64)
            if kind == "encoder" and len(sizes) == 2:
                s = sizes[1]
                for row in range(1, sizes[0]):  # right padding, as export_dynamic.py does
                    mask[row, s - min(2 * row, s - 1):] = 0
            feeds[name] = mask
        elif elem == onnx.TensorProto.INT64:
            feeds[name] = rng.integers(0, vocab, size=sizes, dtype=np.int64)
        elif elem == onnx.TensorProto.FLOAT:
            feeds[name] = rng.standard_normal(sizes).astype(np.float32)
        else:
            raise ValueError(f"input {name}: element type {elem} not handled")
    return feeds


# --------------------------------------------------------------------------
# Export (in its own process)
# --------------------------------------------------------------------------

def _fixture_modules():
    sys.path.insert(0, str(FIXTURES / "exporters"))
    sys.path.insert(0, str(FIXTURES / "architectures"))
    sys.path.insert(0, str(FIXTURES / "dynamic"))
    import export_dynamic as ed  # noqa: E402
    import export_models as em  # noqa: E402

    return ed, em


def build(name, small):
    ed, em = _fixture_modules()
    import torch

    torch.manual_seed(em.SEED)
    if name == "bert_base":
        factory = (lambda: em.make_bert(None)) if small else em.make_bert_base
        model = em.perturb(factory(), em.SEED).eval()
    elif name == "gpt2_past":
        if small:
            model = ed.make_gpt2_past()
        else:
            hf = em.make_gpt2_small()  # GPT2Model, use_cache=False in the config
            cfg = hf.model.config
            model = ed.DecoderWithPast(hf.model, cfg, cfg.n_layer)  # called with use_cache=True
        model = em.perturb(model, em.SEED).eval()
    elif name == "llama_past":
        ekv = sys.modules["export_kv_cache"]
        from transformers import LlamaConfig, LlamaForCausalLM

        if not small:
            ekv.use_medium_size()
            ekv.CONFIG.update(vocab_size=32000, max_position_embeddings=2048)
        config = LlamaConfig(**ekv.CONFIG)
        model = ekv.DecoderStep(em.perturb(LlamaForCausalLM(config), em.SEED).eval(), config)
    elif name == "vit_b16":
        model = em.perturb(em.make_vit() if small else em.make_vit_b_16(), em.SEED).eval()
    else:
        raise ValueError(f"unknown model {name}")
    return model


def export_main(argv):
    name, exporter, out, status_path = argv[:4]
    small = "--small" in argv[4:]
    ed, em = _fixture_modules()
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    torch.set_num_threads(2)
    out = pathlib.Path(out)
    status = {"model": name, "exporter": exporter, "small": small, "file": str(out)}
    start = time.perf_counter()
    model = build(name, small)
    kind = SPECS[name]["kind"]
    if isinstance(kind, tuple) and small:
        kind = (kind[0], SPECS[name]["small"]["image"])
    outputs = ed.output_names(model, kind)
    example_shape = ed.export_shape(kind)
    example = ed.make_feeds(model, kind, example_shape, em.SEED + 1)
    status["build_seconds"] = time.perf_counter() - start
    t0 = time.perf_counter()
    ed.export(model, kind, example, outputs, out, exporter, SPECS[name].get("dynamo_opset"))
    status["export_seconds"] = time.perf_counter() - t0
    status["export_shape"] = example_shape
    desc = em.describe(out)
    status.update({k: desc[k] for k in ("opset", "inputs", "outputs", "nodes", "bytes",
                                        "producer")})
    # One check against PyTorch (ONNX Runtime, the verify shape), as the fixtures do.
    cfg = SPECS[name]["small" if small else "full"]
    shape = cfg["verify_shape"]
    feeds = ed.make_feeds(model, kind, shape, em.SEED + 7)
    try:
        ref = ed.torch_outputs(model, feeds)
        got, _ = em.ort_outputs(out, feeds)
        ok, diff = em.compare(ref, got)
        status["torch_check"] = {"shape": shape, "ok": ok, "max_abs_diff": diff}
    except Exception as e:  # noqa: BLE001
        status["torch_check"] = {"shape": shape, "ok": False,
                                 "error": f"{type(e).__name__}: {str(e)[:500]}"}
    status["seconds"] = time.perf_counter() - start
    pathlib.Path(status_path).write_text(json.dumps(status, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "export":
        sys.exit(export_main(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
