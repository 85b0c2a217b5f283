#!/usr/bin/env python3
"""Saturate on exports of models its fixtures and rules were not written for.

    /root/venv-export/bin/python bench/unseen_models.py --export-dir /work/unseen \\
        --out-dir bench/results/unseen_models

The fixtures (tests/fixtures/exporters) are BERT, DistilBERT, GPT-2, a Llama, ViT, a ResNet,
MobileNetV3 and ShuffleNetV2. This sweep exports other architectures, small and randomly
initialised, with both PyTorch exporters (the fixture script's export, weight perturbation and
TorchScript workarounds: tests/fixtures/exporters/export_models.py), and for each file runs

    saturate optimize FILE -o OUT --cost analytic --latency-runs 0 --verify --json REPORT

then verifies OUT against FILE again in ONNX Runtime (bench/peers.py's check, its own random
feeds) and counts the com.microsoft kernels written. Analytic costs and no latency check, so the
output is the extracted graph itself: what the fusions match, not what the timing keeps. No
speed is measured here (bench/peers.py does that on the benchmark's models).

Writes unseen_models.json and unseen_models.md under --out-dir, and a manifest.json of the exports
under --export-dir. Three of these exports are committed as test fixtures
(tests/fixtures/architectures, see its README):

    /root/venv-export/bin/python bench/unseen_models.py --export-only \\
        --export-dir tests/fixtures/architectures --models opt phi3 swin_small

A model that fails to build or export is listed with the exporter's error (an exporter limit, not Saturate's); a Saturate
error, a failed verification or a crash is what this sweep is for.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import re
import subprocess
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import peers  # noqa: E402  (verification, machine description)


def _load_exporter():
    spec = importlib.util.spec_from_file_location(
        "export_models", REPO / "tests" / "fixtures" / "exporters" / "export_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


em = _load_exporter()
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402
import transformers as tf  # noqa: E402

VOCAB = em.VOCAB
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
# Small shared sizes: hidden 64, 4 heads, 2 layers, as the fixtures.
TEXT = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
DECODER = dict(TEXT, vocab_size=VOCAB, max_position_embeddings=64, use_cache=False)


class VisionWrapper(nn.Module):
    """Calls a Hugging Face vision model and returns last_hidden_state only."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).last_hidden_state


def text(model, mask):
    return em.HFWrapper(model, use_mask=mask)


def hf_models():
    gqa = dict(DECODER, num_key_value_heads=2)
    return [
        ("roberta", lambda: text(tf.RobertaModel(tf.RobertaConfig(
            vocab_size=VOCAB, max_position_embeddings=80, **TEXT), add_pooling_layer=False),
            True), "text_mask"),
        ("albert", lambda: text(tf.AlbertModel(tf.AlbertConfig(
            vocab_size=VOCAB, embedding_size=32, max_position_embeddings=64, **TEXT),
            add_pooling_layer=False), True), "text_mask"),
        ("electra", lambda: text(tf.ElectraModel(tf.ElectraConfig(
            vocab_size=VOCAB, embedding_size=32, max_position_embeddings=64, **TEXT)), True),
         "text_mask"),
        ("mobilebert", lambda: text(tf.MobileBertModel(tf.MobileBertConfig(
            vocab_size=VOCAB, hidden_size=64, embedding_size=32, num_hidden_layers=2,
            num_attention_heads=4, intermediate_size=64, intra_bottleneck_size=32,
            true_hidden_size=32, max_position_embeddings=64), add_pooling_layer=False),
            True), "text_mask"),
        ("deberta_v2", lambda: text(tf.DebertaV2Model(tf.DebertaV2Config(
            vocab_size=VOCAB, max_position_embeddings=64, **TEXT)), True), "text_mask"),
        ("t5_encoder", lambda: text(tf.T5EncoderModel(tf.T5Config(
            vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
            feed_forward_proj="gated-gelu")), True), "text_mask"),
        ("mistral", lambda: text(tf.MistralModel(tf.MistralConfig(**gqa)), False), "text"),
        ("mistral_mask", lambda: text(tf.MistralModel(tf.MistralConfig(**gqa)), True),
         "text_mask"),
        ("qwen2", lambda: text(tf.Qwen2Model(tf.Qwen2Config(**gqa)), False), "text"),
        ("qwen3", lambda: text(tf.Qwen3Model(tf.Qwen3Config(head_dim=16, **gqa)), False),
         "text"),
        ("phi3", lambda: text(tf.Phi3Model(tf.Phi3Config(
            pad_token_id=0, **gqa)), False), "text"),
        ("gemma", lambda: text(tf.GemmaModel(tf.GemmaConfig(head_dim=16, **gqa)), False),
         "text"),
        ("gpt_neox", lambda: text(tf.GPTNeoXModel(tf.GPTNeoXConfig(**DECODER)), False), "text"),
        ("opt", lambda: text(tf.OPTModel(tf.OPTConfig(
            vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
            ffn_dim=128, word_embed_proj_dim=64, max_position_embeddings=64,
            use_cache=False)), True), "text_mask"),
        ("bloom", lambda: text(tf.BloomModel(tf.BloomConfig(
            vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4, use_cache=False)), False),
         "text"),
        ("falcon", lambda: text(tf.FalconModel(tf.FalconConfig(
            vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
            use_cache=False)), False), "text"),
        ("gptj", lambda: text(tf.GPTJModel(tf.GPTJConfig(
            vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=64,
            use_cache=False)), False), "text"),
        ("hf_vit", lambda: VisionWrapper(tf.ViTModel(tf.ViTConfig(
            image_size=32, patch_size=8, **TEXT), add_pooling_layer=False)), ("image", 32)),
        ("clip_vision", lambda: VisionWrapper(tf.CLIPVisionModel(tf.CLIPVisionConfig(
            image_size=32, patch_size=8, **TEXT))), ("image", 32)),
        ("swin", lambda: VisionWrapper(tf.SwinModel(tf.SwinConfig(
            image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4],
            window_size=4), add_pooling_layer=False)), ("image", 32)),
        ("hf_convnext", lambda: VisionWrapper(tf.ConvNextModel(tf.ConvNextConfig(
            hidden_sizes=[16, 32], depths=[1, 1], num_stages=2))), ("image", 64)),
    ]


def vision_models():
    tv = torchvision.models
    return [
        ("mobilenet_v2", lambda: tv.mobilenet_v2(weights=None, width_mult=0.25,
                                                 num_classes=10), ("image", 64)),
        ("efficientnet_b0", lambda: tv.efficientnet_b0(weights=None, num_classes=10),
         ("image", 64)),
        ("convnext_tiny", lambda: tv.convnext_tiny(weights=None, num_classes=10),
         ("image", 64)),
        ("regnet_y_400mf", lambda: tv.regnet_y_400mf(weights=None, num_classes=10),
         ("image", 64)),
        ("densenet121", lambda: tv.densenet121(weights=None, num_classes=10), ("image", 64)),
        ("squeezenet1_1", lambda: tv.squeezenet1_1(weights=None, num_classes=10),
         ("image", 64)),
        ("mnasnet0_5", lambda: tv.mnasnet0_5(weights=None, num_classes=10), ("image", 64)),
        ("googlenet", lambda: tv.googlenet(weights=None, num_classes=10, aux_logits=False,
                                           init_weights=True), ("image", 64)),
        ("swin_t", lambda: tv.swin_t(weights=None, num_classes=10), ("image", 64)),
        ("resnext50", lambda: tv.resnext50_32x4d(weights=None, num_classes=10), ("image", 64)),
        # Swin's layout at fixture size: two stages, the second block of each window-shifted.
        ("swin_small", lambda: tv.SwinTransformer(
            patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
            num_classes=10), ("image", 32)),
    ]


# Medium sizes (--size medium), where kernels cost more than ONNX Runtime's per-node overhead:
# hidden 512, 8 heads, 4 layers, sequence 128 (as the benchmark's Llama), images 224x224.
MEDIUM_VOCAB, MEDIUM_SEQ = 8000, 128
MEDIUM_TEXT = dict(hidden_size=512, num_hidden_layers=4, num_attention_heads=8,
                   intermediate_size=1376)
MEDIUM_DECODER = dict(MEDIUM_TEXT, vocab_size=MEDIUM_VOCAB, max_position_embeddings=512,
                      use_cache=False)


def medium_models():
    gqa = dict(MEDIUM_DECODER, num_key_value_heads=4)
    text_mask = ("text_mask", MEDIUM_VOCAB, MEDIUM_SEQ)
    text_only = ("text", MEDIUM_VOCAB, MEDIUM_SEQ)
    tv = torchvision.models
    return [
        ("roberta_m", lambda: text(tf.RobertaModel(tf.RobertaConfig(
            vocab_size=MEDIUM_VOCAB, max_position_embeddings=520, **MEDIUM_TEXT),
            add_pooling_layer=False), True), text_mask),
        ("t5_encoder_m", lambda: text(tf.T5EncoderModel(tf.T5Config(
            vocab_size=MEDIUM_VOCAB, d_model=512, d_kv=64, d_ff=1376, num_layers=4, num_heads=8,
            feed_forward_proj="gated-gelu")), True), text_mask),
        ("opt_m", lambda: text(tf.OPTModel(tf.OPTConfig(
            vocab_size=MEDIUM_VOCAB, hidden_size=512, num_hidden_layers=4, num_attention_heads=8,
            ffn_dim=2048, word_embed_proj_dim=512, max_position_embeddings=512,
            use_cache=False)), True), text_mask),
        ("mistral_m", lambda: text(tf.MistralModel(tf.MistralConfig(**gqa)), False), text_only),
        ("qwen2_m", lambda: text(tf.Qwen2Model(tf.Qwen2Config(**gqa)), False), text_only),
        ("phi3_m", lambda: text(tf.Phi3Model(tf.Phi3Config(pad_token_id=0, **gqa)), False),
         text_only),
        ("gpt_neox_m", lambda: text(tf.GPTNeoXModel(tf.GPTNeoXConfig(**MEDIUM_DECODER)), False),
         text_only),
        ("clip_vision_m", lambda: VisionWrapper(tf.CLIPVisionModel(tf.CLIPVisionConfig(
            image_size=224, patch_size=16, **MEDIUM_TEXT))), ("image", 224)),
        ("mobilenet_v2_m", lambda: tv.mobilenet_v2(weights=None), ("image", 224)),
        ("efficientnet_b0_m", lambda: tv.efficientnet_b0(weights=None), ("image", 224)),
        ("convnext_tiny_m", lambda: tv.convnext_tiny(weights=None), ("image", 224)),
        ("swin_t_m", lambda: tv.swin_t(weights=None), ("image", 224)),
    ]


def all_models(size="small"):
    return medium_models() if size == "medium" else hf_models() + vision_models()


def export_one(name, factory, kind, exporter, export_dir, seed):
    """Builds and exports one model and compares it in ONNX Runtime with PyTorch; returns
    (path, check). An exporter's failure raises (the caller records it)."""
    torch.manual_seed(em.SEED)
    model = em.perturb(factory(), em.SEED).eval()
    feeds, output_names = em.make_inputs(kind, seed)
    if isinstance(kind, tuple) and kind[0] == "image" and isinstance(model, VisionWrapper):
        output_names = ["last_hidden_state"]
    path = export_dir / f"{name}.{exporter}.onnx"
    em.export(model, feeds, output_names, path, exporter)
    reference = em.torch_outputs(model, feeds)
    got, _ = em.ort_outputs(path, feeds)
    ok, diff = em.compare(reference, got)
    return path, {"allclose": ok, "max_abs_diff": diff}


def record_export(export_dir, row, path):
    """Adds (or replaces) the file's entry in EXPORT_DIR/manifest.json: what made it."""
    manifest_path = export_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest["generator"] = "bench/unseen_models.py"
    manifest["versions"] = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                            "transformers": tf.__version__, "onnx": em.onnx.__version__,
                            "onnxruntime": em.ort.__version__}
    files = [f for f in manifest.get("files", []) if f["file"] != path.name]
    entry = {"file": path.name, "model": row["model"], "exporter": row["exporter"],
             "check": row.get("export_check")}
    entry.update(em.describe(path))
    files.append(entry)
    manifest["files"] = sorted(files, key=lambda f: f["file"])
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


def optimize(args, path, work):
    out = work / f"{path.stem}.saturate.onnx"
    report = work / f"{path.stem}.saturate.json"
    out.unlink(missing_ok=True)
    cost = (["--threads", str(args.threads)] if args.measured
            else ["--cost", "analytic", "--latency-runs", "0"])
    cmd = [str(args.binary), "optimize", str(path), "-o", str(out), *cost, "--verify", "--json",
           str(report)]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout after {args.timeout:.0f} s"}
    entry = {"optimize_seconds": round(time.perf_counter() - start, 1),
             "exit": done.returncode}
    if done.returncode != 0:
        entry["status"] = f"exit {done.returncode}: " + peers.one_line(done.stderr, 600)
        return entry
    data = json.loads(report.read_text())
    entry["fused_operators"] = data.get("fused_operators") or {}
    entry["saturate_verified"] = data.get("verified")
    entry["cost_before"] = data.get("original_cost")
    entry["cost_after"] = data.get("optimized_cost")
    entry["check"] = peers.verify(path, out, args.seed, args.verify_trials)
    entry["status"] = "ok" if entry["check"].get("ok") else "MISMATCH"
    entry["ops_before"] = peers.op_counts(path)["nodes"]
    entry["ops_after"] = peers.op_counts(out)["nodes"]
    entry["opaque_nodes"] = data.get("opaque_nodes")
    entry["kept_original"] = data.get("kept_original")
    entry["extracted_fused_operators"] = data.get("extracted_fused_operators") or {}
    entry["latency_check"] = data.get("latency_check")
    return entry


def markdown(rows, args):
    m = peers.machine(args.binary)
    how = (f"`saturate optimize --threads {args.threads} --verify` (measured costs and the "
           "latency check: the defaults), the output checked again in ONNX Runtime. The latency "
           "column is the check's medians; the kernels are what extraction chose and the check "
           "kept" if args.measured else
           "`saturate optimize --cost analytic --latency-runs 0 --verify`, the output checked "
           "again in ONNX Runtime. No timing: the kernels are what the patterns matched")
    lines = ["# Saturate on exports its fixtures were not written for", "",
             "`bench/unseen_models.py` (commit "
             f"{m.get('commit')}{' (dirty)' if m.get('dirty') else ''}, ONNX Runtime "
             f"{m.get('onnxruntime')}, {m.get('cpu', 'an unknown CPU')}): {args.size} "
             f"randomly initialised models (`--size {args.size}`) exported by both PyTorch "
             f"exporters, {how}.", "",
             "| model | exporter | export | saturate | s | nodes before → after | fused kernels |"
             + (" latency check | extracted before the check |" if args.measured else ""),
             "|---|---|---|---|--:|---|---|" + ("---|---|" if args.measured else "")]
    for r in rows:
        sat = r.get("saturate", {})
        fused = ", ".join(f"{n} {k}" for k, n in sorted(sat.get("fused_operators", {}).items()))
        nodes = (f"{sat['ops_before']} → {sat['ops_after']}" if "ops_after" in sat else "-")
        row = (f"| {r['model']} | {r['exporter']} | {r['export']} | "
               f"{sat.get('status', '-')} | {sat.get('optimize_seconds', '-')} | "
               f"{nodes} | {fused or '-'} |")
        if args.measured:
            check = sat.get("latency_check") or {}
            extracted = ", ".join(f"{n} {k}" for k, n in
                                  sorted(sat.get("extracted_fused_operators", {}).items()))
            row += (f" {check.get('kept', '-')} ({check.get('original_median_ms', 0):.2f} → "
                    f"{check.get('optimized_median_ms', 0):.2f} ms) |" if check else " - |")
            row += f" {extracted or '-'} |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def output_name(args):
    return ("unseen_models" + ("_medium" if args.size == "medium" else "")
            + (f"_measured_t{args.threads}" if args.measured else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--export-dir", type=pathlib.Path, default=pathlib.Path("/work/unseen"))
    ap.add_argument("--out-dir", type=pathlib.Path,
                    default=REPO / "bench" / "results" / "unseen_models")
    ap.add_argument("--models", nargs="+", default=None)
    ap.add_argument("--exporters", nargs="+", default=["torchscript", "dynamo"])
    ap.add_argument("--binary", type=pathlib.Path, default=REPO / "build" / "bin" / "saturate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verify-trials", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--size", choices=["small", "medium"], default="small",
                    help="small: fixture-size models (hidden 64, 2 layers, sequence 16); "
                         "medium: hidden 512, 4 layers, sequence 128, images 224 (a dozen "
                         "models, for --measured)")
    ap.add_argument("--measured", action="store_true",
                    help="Saturate's defaults instead: ONNX Runtime's measured costs and the "
                         "whole-model latency check (minutes per model)")
    ap.add_argument("--threads", type=int, default=1,
                    help="with --measured, the threads ONNX Runtime times with")
    ap.add_argument("--work-dir", type=pathlib.Path, default=pathlib.Path("/work/unseen-work"),
                    help="where Saturate's outputs and reports go")
    ap.add_argument("--export-only", action="store_true",
                    help="export (and check in ONNX Runtime) only: how the committed fixtures "
                         "under tests/fixtures/architectures were made")
    ap.add_argument("--reuse", action="store_true",
                    help="use an export already in --export-dir instead of exporting again")
    args = ap.parse_args()
    models = all_models(args.size)
    if args.models:
        models = [m for m in models if m[0] in args.models]
    for folder in (args.export_dir, args.out_dir, args.work_dir):
        folder.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    rows = []
    for idx, (name, factory, kind) in enumerate(models):
        for exporter in args.exporters:
            row = {"model": name, "exporter": exporter}
            path = args.export_dir / f"{name}.{exporter}.onnx"
            try:
                if not (args.reuse and path.exists()):
                    path, check = export_one(name, factory, kind, exporter, args.export_dir,
                                             em.SEED + 1 + idx)
                    row["export_check"] = check
                    record_export(args.export_dir, row, path)
                row["export"] = "ok"
            except Exception as e:  # noqa: BLE001
                message = ANSI_ESCAPE.sub("", f"{type(e).__name__}: {e}")  # exporters colour
                row["export"] = "failed: " + peers.one_line(message, 200)
                path.unlink(missing_ok=True)
            if row["export"] == "ok" and not args.export_only:
                row["saturate"] = optimize(args, path, args.work_dir)
            peers.log(f"{name}.{exporter}: export {row['export']}; saturate "
                      f"{row.get('saturate', {}).get('status', '-')} "
                      f"{row.get('saturate', {}).get('fused_operators', '')}")
            rows.append(row)
            if args.export_only:
                continue
            (args.out_dir / f"{output_name(args)}.json").write_text(json.dumps(
                {"machine": peers.machine(args.binary), "rows": rows}, indent=1) + "\n")
    if not args.export_only:
        (args.out_dir / f"{output_name(args)}.md").write_text(markdown(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
