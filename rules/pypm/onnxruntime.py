"""Fusions into ONNX Runtime's contrib kernels (domain com.microsoft), for `--target onnxruntime`.

Scaled dot-product attention as PyTorch's exporters write it, fused into one
`MultiHeadAttention` (ONNX Runtime's com.microsoft.MultiHeadAttention):

    Q  = Transpose(Reshape(q, [B, S, N, H]), perm=[0, 2, 1, 3])           q, k, v: (B, S, D)
    KT = Transpose(Reshape(k, [B, L, N, H]), perm=[0, 2, 3, 1])           (or K transposed)
    V  = Transpose(Reshape(v, [B, L, N, H]), perm=[0, 2, 1, 3])
    P  = Softmax(MatMul(Q, KT) * c [+ mask], axis=-1)
    y  = Reshape(Transpose(MatMul(P, V), perm=[0, 2, 1, 3]), [B, S, D])
      ->  MultiHeadAttention(q, k, v [, mask], num_heads=N, scale=c)

The spellings covered, one alternate each:
- the key's transpose: one Transpose (0, 2, 3, 1) (TorchScript, eager attention), a head split
  then Transpose (0, 1, 3, 2), or the dynamo exporter's Reshape (B*N, L, H) -> Transpose (0, 2, 1)
  -> Reshape (B, N, H, L);
- the scale: Mul(scores, c) (eager), Div(scores, c), sqrt(c) on both sides of the product,
  Mul(Q, c1) and Mul(KT, c2) (SDPA, both exporters), or none (the query scaled before its head
  split and SDPA called with scale 1, as OPT's dynamo export; the kernel's scale is then 1);
- the mask: none, or an additive bias (B or 1, N or 1, S or 1, L) on either side of the Add;
- SDPA's guard Where(IsNaN(P), 0, P) after the softmax, with or without it;
- the head merge: Transpose (0, 2, 1, 3) then Reshape (B, S, D) or (B*S, D), with or without
  SDPA's Reshape to the same 4-d shape before the transpose.

Heads computed in 4-d by other means (a rotary embedding on the split heads, grouped keys
expanded to every head, a packed QKV projection split by Reshape (B, S, 3, N, H), Transpose and
Gather, with the query heads scaled as torchvision's Swin does) fuse too, with or without a mask:
the replacement merges each head tensor back into (B, S, D) for the kernel. Where the keys are
longer than the queries (a decoder step attending to a key-value cache), the keys and values stay
heads, (B, N, L, H), which the kernel reads as they are, and only the query is merged.

Sequence-first attention (nn.MultiheadAttention, torchvision's ViT: q, k, v of shape (S, B, D),
heads split through (S, B*N, H) and (B*N, S, H), merged with Transpose (2, 0, 1, 3)) fuses the
same way, with q, k, v transposed to (B, S, D) for the kernel and its output transposed back.

The replacement is the fused output reshaped to the matched value's shape (export writes no
node for a reshape to the same shape).

Self-attention whose q, k and v are three biased projections of one input (x W + b: BERT's,
DistilBERT's), once fused, becomes `QkvAttention` (ONNX Runtime's com.microsoft.Attention): the
weights packed into one (Din, 3 D) initializer and the biases into one (3 D), so the kernel makes
one product for the three. Where the model packed them itself (GPT-2's Conv1D `c_attn`: one
x W + b of width 3 D, split in thirds along the last axis), the weight and bias are the kernel's
as they are.

Every reshape is checked to be the exact row-major head split (or merge) of the hidden axis,
so the fused kernel computes what the pattern does. One difference: on a row whose keys are
all masked with -inf, SDPA's IsNaN guard gives zeros and ONNX Runtime's kernel gives NaN (a
query that may attend to no key; padding masks mask keys, not queries, so this needs an
all-padding batch element).

RMSNorm (Llama's, T5's) as the exporters write it, fused into `RMSNorm` (ONNX Runtime's
SimplifiedLayerNormalization):

    y = w * (x * rsqrt(ReduceMean(x^2, last axis, keepdims) + eps))      w: (D,), x: (..., D)
      ->  RMSNorm(x, w, epsilon=eps)

with rsqrt as Reciprocal(Sqrt(v)) (dynamo), Div(1, Sqrt(v)) (TorchScript), Pow(v, -0.5), or
x / Sqrt(v); x^2 as Pow(x, 2) or x * x; each product and the sum in either order. ONNX Runtime
fuses the TorchScript spelling itself at session creation, but not the dynamo exporter's
Reciprocal.

The GELU family, fused into ONNX Runtime's activation kernels:

    gelu(x + b), gelu exact     ->  BiasGelu(x, b)       (BERT, ViT: a linear layer's bias, then
                                                          Gelu (dynamo, opset 20) or
                                                          x * (1 + erf(x / sqrt 2)) / 2 spelled
                                                          out (TorchScript))
    x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) / 2
                                ->  FastGelu(x)          (GPT-2's; x^3 as Pow(x, 3) or x * x * x)
    x * sigmoid(x)              ->  QuickGelu(x, alpha=1)   (SiLU: Llama's MLP gate)
    x * sigmoid(a * x)          ->  QuickGelu(x, alpha=a)

the half of a GELU in any of the three places exporters put it, each product and sum in either
order. On its CPU provider ONNX Runtime (1.32) fuses the spelled-out GELU, the tanh form and
SiLU itself at session creation (into Gelu, FastGelu, QuickGelu: what it saved with
optimized_model_filepath on the exporter fixtures), but leaves the bias add before a GELU a kernel
of its own; BiasGelu saves that one. See docs/ONNX_RUNTIME.md for what each fusion measured.

Rotary position embedding in the rotate-half form (Llama's, GPT-NeoX's), as both exporters
write it on the head tensors (B, N, S, H):

    x * cos + concat(-x[..., H/2:], x[..., :H/2], axis=-1) * sin      cos, sin: (S, H) tables
      ->  RotaryEmbedding(x, cos, sin)                                 (leading 1s allowed)

each product and the sum in either order. The IR operator computes exactly that formula for
any tables; export writes ONNX Runtime's RotaryEmbedding (cos and sin caches of shape
(S, H/2), position ids starting at 0) only where the tables are constants that repeat their
first half in every row, as every rotate-half table does, and the formula otherwise. ONNX
Runtime fuses none of this at session creation.

Convolutions with their bias, an optional residual sum and an activation, fused into
`FusedConv` (ONNX Runtime's com.microsoft.FusedConv):

    act(conv2d(x, w) + b [+ z])   ->  FusedConv(x, w, b [, z], activation=act)
                                      act: Relu, Sigmoid, Tanh, Clip (ReLU6), LeakyRelu,
                                      HardSigmoid, or none (a Conv with its bias)

b one value per output channel ((C), (C, 1, 1) or (1, C, 1, 1): import writes ONNX Conv's bias
as an add of the (C, 1, 1) reshape), z a residual of the output's shape (ResNet's and
MobileNet's blocks), each sum in either order. ONNX Runtime's CPU provider fuses Conv + Add +
activation itself at session creation, so this gains nothing there; it writes the bias back
into the Conv, which the IR's conv2d has no input for.

FusedMatMul (a matrix product with its operands' transposes and a scalar scale) is in its own
library, rules/pypm/onnxruntime_matmul.py: see there why.

Compile: saturate pm compile rules/pypm/onnxruntime.py -o onnxruntime.pmb (the build does it).
"""
import sys

from saturate import pypm
from saturate.pypm import (Add, BiasGelu, Concat, Div, Erf, EwAdd, EwMul, FastGelu, FusedConv,
                           Gelu, LayerNorm, MatMul, Mul, MultiHeadAttention, Opaque,
                           Pow, QkvAttention, QuickGelu, ReduceMean, Reshape, RMSNorm, RotaryEmbedding, Sigmoid,
                           SkipLayerNorm, SkipRMSNorm, Slice, Softmax, Sqrt, Sub, Tanh, Transpose,
                           op_var, pattern, rule, var)


@pattern
def SplitHeads(x, r):
    """(B, S, D) -> (B, N, S, H): view as heads, heads before positions."""
    assert r <= Reshape(x)
    assert x.shape.rank == 3 and r.shape.rank == 4
    assert r.shape[0] == x.shape[0] and r.shape[1] == x.shape[1]
    assert r.shape[2] * r.shape[3] == x.shape[2]
    return Transpose(r, perm=[0, 2, 1, 3])


@pattern
def KeysTransposed(k, r):
    """(B, L, D) -> (B, N, H, L) in one transpose."""
    assert r <= Reshape(k)
    assert k.shape.rank == 3 and r.shape.rank == 4
    assert r.shape[0] == k.shape[0] and r.shape[1] == k.shape[1]
    assert r.shape[2] * r.shape[3] == k.shape[2]
    return Transpose(r, perm=[0, 2, 3, 1])


@pattern
def KeysTransposed(k, r):  # noqa: F811 - split heads, then swap the last two axes
    return Transpose(SplitHeads(k, r), perm=[0, 1, 3, 2])


@pattern
def KeysTransposed(k, r):  # noqa: F811 - the dynamo exporter: through (B*N, L, H)
    heads, flat, t = var(), var(), var()
    assert t <= Reshape(Transpose(flat, perm=[0, 2, 1]))
    assert flat <= Reshape(heads)
    assert heads <= SplitHeads(k, r)
    assert flat.shape.rank == 3 and t.shape.rank == 4
    assert flat.shape[0] == heads.shape[0] * heads.shape[1]
    assert flat.shape[1] == heads.shape[2] and flat.shape[2] == heads.shape[3]
    assert t.shape[0] == heads.shape[0] and t.shape[1] == heads.shape[1]
    assert t.shape[2] == heads.shape[3] and t.shape[3] == heads.shape[2]
    return t


@pattern
def Plus(a, b):
    """a + b in either order; import writes EwAdd when the two shapes are equal."""
    return Add(a, b)


@pattern
def Plus(a, b):  # noqa: F811 - the bias first
    return Add(b, a)


@pattern
def Plus(a, b):  # noqa: F811
    return EwAdd(a, b)


@pattern
def Plus(a, b):  # noqa: F811
    return EwAdd(b, a)


@pattern
def KeySoftmax(x):
    """Softmax over the keys, the last axis of the 4-d scores (import writes it as 3)."""
    return Softmax(x, axis=3)


@pattern
def KeySoftmax(x):  # noqa: F811
    return Softmax(x, axis=-1)


@pattern
def NanGuard(p):
    """SDPA's Where(IsNaN(p), 0, p) after the softmax (both exporters write it)."""
    return Opaque(Opaque(p, op_type="IsNaN"), 0.0, p, op_type="Where")


@pattern
def NanGuard(p):  # noqa: F811 - no guard
    return p


@pattern
def MergeHeads(o, y):
    """(B, N, S, H) -> positions by hidden features: (B, S, D), or (B*S, D) before a Gemm-like
    product (GPT-2's dynamo export). Any reshape whose last axis is D keeps each position's
    row whole, so it is the fused output reshaped to y's shape."""
    assert y <= Reshape(Transpose(o, perm=[0, 2, 1, 3]))
    assert o.shape.rank == 4 and y.shape[-1] == o.shape[1] * o.shape[3]
    return y


@pattern
def MergeHeads(o, y):  # noqa: F811 - SDPA's reshape to the same 4-d shape first
    same = var()
    assert y <= Reshape(Transpose(same, perm=[0, 2, 1, 3]))
    assert same <= Reshape(o)
    assert same.shape.rank == 4 and o.shape.rank == 4
    assert same.shape[0] == o.shape[0] and same.shape[1] == o.shape[1]
    assert same.shape[2] == o.shape[2] and same.shape[3] == o.shape[3]
    assert y.shape[-1] == o.shape[1] * o.shape[3]
    return y


# Scores times c, with and without a mask.
@pattern
def AttentionMulScale(y, q, k, v, qr, kr, vr, c):
    scores = Mul(MatMul(SplitHeads(q, qr), KeysTransposed(k, kr), activation="none"), c)
    probs = NanGuard(KeySoftmax(scores))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


@pattern
def MaskedAttentionMulScale(y, q, k, v, qr, kr, vr, c, m):
    scores = Mul(MatMul(SplitHeads(q, qr), KeysTransposed(k, kr), activation="none"), c)
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


# Scores divided by c.
@pattern
def AttentionDivScale(y, q, k, v, qr, kr, vr, c):
    scores = Div(MatMul(SplitHeads(q, qr), KeysTransposed(k, kr), activation="none"), c)
    probs = NanGuard(KeySoftmax(scores))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


@pattern
def MaskedAttentionDivScale(y, q, k, v, qr, kr, vr, c, m):
    scores = Div(MatMul(SplitHeads(q, qr), KeysTransposed(k, kr), activation="none"), c)
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


# SDPA: each side of the product scaled by sqrt(c).
@pattern
def AttentionSplitScale(y, q, k, v, qr, kr, vr, c, c2):
    scores = MatMul(Mul(SplitHeads(q, qr), c), Mul(KeysTransposed(k, kr), c2), activation="none")
    probs = NanGuard(KeySoftmax(scores))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


@pattern
def MaskedAttentionSplitScale(y, q, k, v, qr, kr, vr, c, c2, m):
    scores = MatMul(Mul(SplitHeads(q, qr), c), Mul(KeysTransposed(k, kr), c2), activation="none")
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


@rule(AttentionMulScale)
def fuse_attention_mul_scale(y, q, k, v, qr, kr, vr, c):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    fused = MultiHeadAttention(q, k, v, num_heads=qr.shape[2], scale=c.attrs.value)
    return Reshape(fused, shape=y.shape)


@rule(MaskedAttentionMulScale)
def fuse_masked_attention_mul_scale(y, q, k, v, qr, kr, vr, c, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    assert m.shape.rank == 4 and m.shape[0] in (1, q.shape[0]) and m.shape[1] in (1, qr.shape[2])
    assert m.shape[2] in (1, q.shape[1]) and m.shape[3] == k.shape[1]
    fused = MultiHeadAttention(q, k, v, m, num_heads=qr.shape[2], scale=c.attrs.value)
    return Reshape(fused, shape=y.shape)


@rule(AttentionDivScale)
def fuse_attention_div_scale(y, q, k, v, qr, kr, vr, c):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    fused = MultiHeadAttention(q, k, v, num_heads=qr.shape[2], scale=1.0 / c.attrs.value)
    return Reshape(fused, shape=y.shape)


@rule(MaskedAttentionDivScale)
def fuse_masked_attention_div_scale(y, q, k, v, qr, kr, vr, c, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    assert m.shape.rank == 4 and m.shape[0] in (1, q.shape[0]) and m.shape[1] in (1, qr.shape[2])
    assert m.shape[2] in (1, q.shape[1]) and m.shape[3] == k.shape[1]
    fused = MultiHeadAttention(q, k, v, m, num_heads=qr.shape[2], scale=1.0 / c.attrs.value)
    return Reshape(fused, shape=y.shape)


@rule(AttentionSplitScale)
def fuse_attention_split_scale(y, q, k, v, qr, kr, vr, c, c2):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert c2.op == "constant" and c2.shape.numel == 1 and c2.attrs.value != 0
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    fused = MultiHeadAttention(q, k, v, num_heads=qr.shape[2],
                              scale=c.attrs.value * c2.attrs.value)
    return Reshape(fused, shape=y.shape)


@rule(MaskedAttentionSplitScale)
def fuse_masked_attention_split_scale(y, q, k, v, qr, kr, vr, c, c2, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert c2.op == "constant" and c2.shape.numel == 1 and c2.attrs.value != 0
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    assert m.shape.rank == 4 and m.shape[0] in (1, q.shape[0]) and m.shape[1] in (1, qr.shape[2])
    assert m.shape[2] in (1, q.shape[1]) and m.shape[3] == k.shape[1]
    fused = MultiHeadAttention(q, k, v, m, num_heads=qr.shape[2],
                              scale=c.attrs.value * c2.attrs.value)
    return Reshape(fused, shape=y.shape)


# No scale on the scores: the query was scaled before its head split (OPT, BART-style attention
# passing scale 1 to SDPA, which the dynamo exporter then writes no multiply for).
@pattern
def AttentionNoScale(y, q, k, v, qr, kr, vr):
    scores = MatMul(SplitHeads(q, qr), KeysTransposed(k, kr), activation="none")
    probs = NanGuard(KeySoftmax(scores))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


@pattern
def MaskedAttentionNoScale(y, q, k, v, qr, kr, vr, m):
    scores = MatMul(SplitHeads(q, qr), KeysTransposed(k, kr), activation="none")
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return MergeHeads(MatMul(probs, SplitHeads(v, vr), activation="none"), y)


@rule(AttentionNoScale)
def fuse_attention_no_scale(y, q, k, v, qr, kr, vr):
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    fused = MultiHeadAttention(q, k, v, num_heads=qr.shape[2], scale=1.0)
    return Reshape(fused, shape=y.shape)


@rule(MaskedAttentionNoScale)
def fuse_masked_attention_no_scale(y, q, k, v, qr, kr, vr, m):
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert q.shape[0] == k.shape[0] and q.shape[0] == v.shape[0] and k.shape[1] == v.shape[1]
    assert m.shape.rank == 4 and m.shape[0] in (1, q.shape[0]) and m.shape[1] in (1, qr.shape[2])
    assert m.shape[2] in (1, q.shape[1]) and m.shape[3] == k.shape[1]
    fused = MultiHeadAttention(q, k, v, m, num_heads=qr.shape[2], scale=1.0)
    return Reshape(fused, shape=y.shape)


# Attention on head tensors computed in 4-d (B, N, S, H): a Llama-style decoder applies its
# rotary embedding to the split heads and expands grouped keys and values to all heads. The
# replacement merges each head tensor back into (B, S, D) (a transpose and a reshape) for the
# fused kernel; the cost model weighs those copies against the kernels the fusion saves. Where
# the keys are longer than the queries (a key-value cache), the keys and values stay heads.
# A scale of 0 is refused everywhere: ONNX Runtime reads scale 0 as "1 / sqrt(head size)".
@pattern
def MaskedHeadAttentionSplitScale(y, qh, kt, vh, c, c2, m):
    scores = MatMul(Mul(qh, c), Mul(kt, c2), activation="none")
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return MergeHeads(MatMul(probs, vh, activation="none"), y)


@pattern
def MaskedHeadAttentionMulScale(y, qh, kt, vh, c, m):
    scores = Mul(MatMul(qh, kt, activation="none"), c)
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return MergeHeads(MatMul(probs, vh, activation="none"), y)


# No scale on the scores: the query heads were scaled before (torchvision's Swin, the heads of a
# packed QKV projection: q = q * scale; attn = q @ k.transpose(-2, -1) + bias).
@pattern
def MaskedHeadAttentionNoScale(y, qh, kt, vh, m):
    probs = NanGuard(KeySoftmax(Plus(MatMul(qh, kt, activation="none"), m)))
    return MergeHeads(MatMul(probs, vh, activation="none"), y)


# Without a mask: an encoder's heads computed in 4-d (a packed QKV projection split by
# Reshape (B, S, 3, N, H), Transpose and Gather, as timm's and torchvision's vision models write
# it).
@pattern
def HeadAttentionSplitScale(y, qh, kt, vh, c, c2):
    scores = MatMul(Mul(qh, c), Mul(kt, c2), activation="none")
    return MergeHeads(MatMul(NanGuard(KeySoftmax(scores)), vh, activation="none"), y)


@pattern
def HeadAttentionMulScale(y, qh, kt, vh, c):
    scores = Mul(MatMul(qh, kt, activation="none"), c)
    return MergeHeads(MatMul(NanGuard(KeySoftmax(scores)), vh, activation="none"), y)


@pattern
def HeadAttentionNoScale(y, qh, kt, vh):
    probs = NanGuard(KeySoftmax(MatMul(qh, kt, activation="none")))
    return MergeHeads(MatMul(probs, vh, activation="none"), y)


def merged_heads_shape(qh):
    """(B, S, N H) for query heads (B, N, S, H): a list of the matched dims."""
    return [qh.shape[0], qh.shape[2], qh.shape[1] * qh.shape[3]]


def head_attention(qh, kt, vh, scale, m=None):
    """Self-attention (L = S): MultiHeadAttention on the head tensors merged back into (B, S, D),
    the form the benchmarks measured. A plain helper (not a pattern): the rules below call it
    while they are traced, after checking the shapes."""
    merged = merged_heads_shape(qh)
    q = Reshape(Transpose(qh, perm=[0, 2, 1, 3]), shape=merged)
    k = Reshape(Transpose(kt, perm=[0, 3, 1, 2]), shape=merged)
    v = Reshape(Transpose(vh, perm=[0, 2, 1, 3]), shape=merged)
    inputs = [q, k, v] if m is None else [q, k, v, m]
    return MultiHeadAttention(*inputs, num_heads=qh.shape[1], scale=scale)


def cached_head_attention(qh, kt, vh, scale, m=None):
    """Keys longer (or shorter) than the queries, as in a decoder step attending to a key-value
    cache (the keys concatenated to the cached ones, grouped heads expanded): the keys and values
    stay heads, (B, N, L, H), which ONNX Runtime's MultiHeadAttention reads as its BNSH layout;
    only the query is merged into (B, S, D). A plain helper, like head_attention."""
    q = Reshape(Transpose(qh, perm=[0, 2, 1, 3]), shape=merged_heads_shape(qh))
    k = Transpose(kt, perm=[0, 1, 3, 2])
    inputs = [q, k, vh] if m is None else [q, k, vh, m]
    return MultiHeadAttention(*inputs, num_heads=qh.shape[1], scale=scale)


# Each head rule checks: (B, N, S, H) queries, (B, N, H, L) keys, (B, N, L, H) values, y
# (B, S, N H), or (B S, N H) where the exporter flattens the merged heads for a Gemm (GPT-2's
# dynamo export: the fused output is reshaped to y); a mask broadcasting to (B, N, S, L);
# constant, nonzero scales. Self-attention
# (L = S at every size) merges every head tensor; any other key length, a cache length not
# proven equal to the query's (past + sequence against sequence) included, merges only the
# query: that form is sound at every L.
@rule(MaskedHeadAttentionSplitScale)
def fuse_head_attention_split_scale(y, qh, kt, vh, c, c2, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert c2.op == "constant" and c2.shape.numel == 1 and c2.attrs.value != 0
    assert qh.shape.rank == 4 and kt.shape.rank == 4 and vh.shape.rank == 4
    assert kt.shape[0] == qh.shape[0] and kt.shape[1] == qh.shape[1] and kt.shape[2] == qh.shape[3]
    assert vh.shape[0] == qh.shape[0] and vh.shape[1] == qh.shape[1]
    assert vh.shape[2] == kt.shape[3] and vh.shape[3] == qh.shape[3]
    assert (y.shape.rank == 3 and y.shape[0] == qh.shape[0] and y.shape[1] == qh.shape[2] or
            y.shape.rank == 2 and y.shape[0] == qh.shape[0] * qh.shape[2])  # (B, S, D), (B S, D)
    assert m.shape.rank == 4 and m.shape[0] in (1, qh.shape[0]) and m.shape[1] in (1, qh.shape[1])
    assert m.shape[2] in (1, qh.shape[2]) and m.shape[3] == kt.shape[3]
    if pypm.proven(kt.shape[3] == qh.shape[2]):
        fused = head_attention(qh, kt, vh, c.attrs.value * c2.attrs.value, m)
    else:
        fused = cached_head_attention(qh, kt, vh, c.attrs.value * c2.attrs.value, m)
    return fused if y.shape.rank == 3 else Reshape(fused, shape=y.shape)


@rule(MaskedHeadAttentionMulScale)
def fuse_head_attention_mul_scale(y, qh, kt, vh, c, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert qh.shape.rank == 4 and kt.shape.rank == 4 and vh.shape.rank == 4
    assert kt.shape[0] == qh.shape[0] and kt.shape[1] == qh.shape[1] and kt.shape[2] == qh.shape[3]
    assert vh.shape[0] == qh.shape[0] and vh.shape[1] == qh.shape[1]
    assert vh.shape[2] == kt.shape[3] and vh.shape[3] == qh.shape[3]
    assert (y.shape.rank == 3 and y.shape[0] == qh.shape[0] and y.shape[1] == qh.shape[2] or
            y.shape.rank == 2 and y.shape[0] == qh.shape[0] * qh.shape[2])  # (B, S, D), (B S, D)
    assert m.shape.rank == 4 and m.shape[0] in (1, qh.shape[0]) and m.shape[1] in (1, qh.shape[1])
    assert m.shape[2] in (1, qh.shape[2]) and m.shape[3] == kt.shape[3]
    if pypm.proven(kt.shape[3] == qh.shape[2]):
        fused = head_attention(qh, kt, vh, c.attrs.value, m)
    else:
        fused = cached_head_attention(qh, kt, vh, c.attrs.value, m)
    return fused if y.shape.rank == 3 else Reshape(fused, shape=y.shape)


@rule(MaskedHeadAttentionNoScale)
def fuse_head_attention_no_scale(y, qh, kt, vh, m):
    assert qh.shape.rank == 4 and kt.shape.rank == 4 and vh.shape.rank == 4
    assert kt.shape[0] == qh.shape[0] and kt.shape[1] == qh.shape[1] and kt.shape[2] == qh.shape[3]
    assert vh.shape[0] == qh.shape[0] and vh.shape[1] == qh.shape[1]
    assert vh.shape[2] == kt.shape[3] and vh.shape[3] == qh.shape[3]
    assert (y.shape.rank == 3 and y.shape[0] == qh.shape[0] and y.shape[1] == qh.shape[2] or
            y.shape.rank == 2 and y.shape[0] == qh.shape[0] * qh.shape[2])  # (B, S, D), (B S, D)
    assert m.shape.rank == 4 and m.shape[0] in (1, qh.shape[0]) and m.shape[1] in (1, qh.shape[1])
    assert m.shape[2] in (1, qh.shape[2]) and m.shape[3] == kt.shape[3]
    if pypm.proven(kt.shape[3] == qh.shape[2]):
        fused = head_attention(qh, kt, vh, 1.0, m)
    else:
        fused = cached_head_attention(qh, kt, vh, 1.0, m)
    return fused if y.shape.rank == 3 else Reshape(fused, shape=y.shape)


@rule(HeadAttentionSplitScale)
def fuse_unmasked_head_attention_split_scale(y, qh, kt, vh, c, c2):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert c2.op == "constant" and c2.shape.numel == 1 and c2.attrs.value != 0
    assert qh.shape.rank == 4 and kt.shape.rank == 4 and vh.shape.rank == 4
    assert kt.shape[0] == qh.shape[0] and kt.shape[1] == qh.shape[1] and kt.shape[2] == qh.shape[3]
    assert vh.shape[0] == qh.shape[0] and vh.shape[1] == qh.shape[1]
    assert vh.shape[2] == kt.shape[3] and vh.shape[3] == qh.shape[3]
    assert (y.shape.rank == 3 and y.shape[0] == qh.shape[0] and y.shape[1] == qh.shape[2] or
            y.shape.rank == 2 and y.shape[0] == qh.shape[0] * qh.shape[2])  # (B, S, D), (B S, D)
    if pypm.proven(kt.shape[3] == qh.shape[2]):
        fused = head_attention(qh, kt, vh, c.attrs.value * c2.attrs.value)
    else:
        fused = cached_head_attention(qh, kt, vh, c.attrs.value * c2.attrs.value)
    return fused if y.shape.rank == 3 else Reshape(fused, shape=y.shape)


@rule(HeadAttentionMulScale)
def fuse_unmasked_head_attention_mul_scale(y, qh, kt, vh, c):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert qh.shape.rank == 4 and kt.shape.rank == 4 and vh.shape.rank == 4
    assert kt.shape[0] == qh.shape[0] and kt.shape[1] == qh.shape[1] and kt.shape[2] == qh.shape[3]
    assert vh.shape[0] == qh.shape[0] and vh.shape[1] == qh.shape[1]
    assert vh.shape[2] == kt.shape[3] and vh.shape[3] == qh.shape[3]
    assert (y.shape.rank == 3 and y.shape[0] == qh.shape[0] and y.shape[1] == qh.shape[2] or
            y.shape.rank == 2 and y.shape[0] == qh.shape[0] * qh.shape[2])  # (B, S, D), (B S, D)
    if pypm.proven(kt.shape[3] == qh.shape[2]):
        fused = head_attention(qh, kt, vh, c.attrs.value)
    else:
        fused = cached_head_attention(qh, kt, vh, c.attrs.value)
    return fused if y.shape.rank == 3 else Reshape(fused, shape=y.shape)


@rule(HeadAttentionNoScale)
def fuse_unmasked_head_attention_no_scale(y, qh, kt, vh):
    assert qh.shape.rank == 4 and kt.shape.rank == 4 and vh.shape.rank == 4
    assert kt.shape[0] == qh.shape[0] and kt.shape[1] == qh.shape[1] and kt.shape[2] == qh.shape[3]
    assert vh.shape[0] == qh.shape[0] and vh.shape[1] == qh.shape[1]
    assert vh.shape[2] == kt.shape[3] and vh.shape[3] == qh.shape[3]
    assert (y.shape.rank == 3 and y.shape[0] == qh.shape[0] and y.shape[1] == qh.shape[2] or
            y.shape.rank == 2 and y.shape[0] == qh.shape[0] * qh.shape[2])  # (B, S, D), (B S, D)
    if pypm.proven(kt.shape[3] == qh.shape[2]):
        fused = head_attention(qh, kt, vh, 1.0)
    else:
        fused = cached_head_attention(qh, kt, vh, 1.0)
    return fused if y.shape.rank == 3 else Reshape(fused, shape=y.shape)


# ---- self-attention with its projections (com.microsoft.Attention) -----------------------------
# Fused attention whose q, k and v are three projections of one input, x W + b, becomes ONNX
# Runtime's Attention: the three weights packed into one (Din, 3 D) matrix and the biases into
# one (3 D) vector, computed from the weights alone (export writes each as one initializer), so
# the kernel makes one product for the three. A second step on the fused attention, so that it
# stays an alternative in the e-graph, chosen by cost.
@pattern
def Projection(x, w, b):
    """x W + b with W (Din, D) and b (D) weights of the model (packing them is then free at run
    time)."""
    assert w.op == "weight" and b.op == "weight"
    assert w.shape.rank == 2 and b.shape.rank == 1 and b.shape[0] == w.shape[1]
    return Plus(MatMul(x, w, activation="none"), b)


@pattern
def ProjectedSelfAttention(x, wq, bq, wk, bk, wv, bv, mha: pypm.Op):
    assert mha.name == "multi_head_attention"
    return mha(Projection(x, wq, bq), Projection(x, wk, bk), Projection(x, wv, bv))


@pattern
def MaskedProjectedSelfAttention(x, wq, bq, wk, bk, wv, bv, m, mha: pypm.Op):
    assert mha.name == "multi_head_attention"
    return mha(Projection(x, wq, bq), Projection(x, wk, bk), Projection(x, wv, bv), m)


# Each rule checks x (B, S, Din) and three weights of one shape (the biases follow: Projection
# checked each against its weight).
@rule(ProjectedSelfAttention)
def fuse_qkv_attention(x, wq, bq, wk, bk, wv, bv, mha: pypm.Op):
    assert x.shape.rank == 3 and wk.shape == wq.shape and wv.shape == wq.shape
    return QkvAttention(x, Concat(wq, wk, wv, axis=1), Concat(bq, bk, bv, axis=0),
                        num_heads=mha.attrs.num_heads, scale=mha.attrs.scale)


@rule(MaskedProjectedSelfAttention)
def fuse_masked_qkv_attention(x, wq, bq, wk, bk, wv, bv, m, mha: pypm.Op):
    assert x.shape.rank == 3 and wk.shape == wq.shape and wv.shape == wq.shape
    return QkvAttention(x, Concat(wq, wk, wv, axis=1), Concat(bq, bk, bv, axis=0), m,
                        num_heads=mha.attrs.num_heads, scale=mha.attrs.scale)


# The projections packed by the model itself (GPT-2's Conv1D c_attn: one x W + b of width 3 D on
# the rows flattened to (B*S, Din), viewed back as (B, S, 3 D) and split in three along the last
# axis) are the kernel's packed weight and bias as they are. In the e-graph the three parts are
# slices of the product (the matcher's view of TENSAT's binary splits); `pm apply` sees the Split.
@pattern
def PackedProjection(x, w, b):
    """x W + b of width 3 D on x (B, S, Din), in 3-d."""
    return Projection(x, w, b)


@pattern
def PackedProjection(x, w, b):  # noqa: F811 - GPT-2's Conv1D: view(-1, Din), addmm, view back
    rows, flat, p = var(), var(), var()
    assert p <= Reshape(flat)
    assert flat <= Projection(rows, w, b)
    assert rows <= Reshape(x)
    assert x.shape.rank == 3 and rows.shape.rank == 2 and p.shape.rank == 3
    assert rows.shape[0] == x.shape[0] * x.shape[1] and rows.shape[1] == x.shape[2]
    assert p.shape[0] == x.shape[0] and p.shape[1] == x.shape[1] and p.shape[2] == flat.shape[1]
    return p


@pattern
def FirstThird(p):
    """p[..., :D] of p (B, S, 3 D): a slice in the e-graph."""
    part = op_var()
    assert part.name == "slice" and p.shape.rank == 3 and p.shape[2] % 3 == 0
    assert part.attrs.axis == 2 and part.attrs.start == 0 and part.attrs.end == p.shape[2] // 3
    return part(p)


@pattern
def SecondThird(p):
    """p[..., D:2 D]."""
    part = op_var()
    assert part.name == "slice" and p.shape.rank == 3 and p.shape[2] % 3 == 0
    assert part.attrs.axis == 2 and part.attrs.start == p.shape[2] // 3
    assert part.attrs.end == 2 * (p.shape[2] // 3)
    return part(p)


@pattern
def LastThird(p):
    """p[..., 2 D:]."""
    part = op_var()
    assert part.name == "slice" and p.shape.rank == 3 and p.shape[2] % 3 == 0
    assert part.attrs.axis == 2 and part.attrs.start == 2 * (p.shape[2] // 3)
    assert part.attrs.end == p.shape[2]
    return part(p)


@pattern
def PackedSelfAttention(x, w, b, mha: pypm.Op):
    """q, k, v the three thirds of the last axis of one packed projection: slices in the e-graph."""
    p = var()
    assert mha.name == "multi_head_attention"
    assert p <= PackedProjection(x, w, b)
    return mha(FirstThird(p), SecondThird(p), LastThird(p))


@pattern
def PackedSelfAttention(x, w, b, mha: pypm.Op):  # noqa: F811 - outputs 0, 1, 2 of one Split
    p, q, k, v, split = var(), var(), var(), var(), op_var()
    assert mha.name == "multi_head_attention"
    assert q <= split(p)[0]
    assert k <= split(p)[1]
    assert v <= split(p)[2]
    assert split.name == "split"
    assert p <= PackedProjection(x, w, b)
    # Three parts of equal width that fill the last axis: the split's sizes are [D, D, D].
    assert p.shape.rank == 3 and split.attrs.axis in (2, -1)
    assert q.shape[2] == k.shape[2] and v.shape[2] == q.shape[2] and p.shape[2] == 3 * q.shape[2]
    return mha(q, k, v)


@pattern
def MaskedPackedSelfAttention(x, w, b, m, mha: pypm.Op):
    p = var()
    assert mha.name == "multi_head_attention"
    assert p <= PackedProjection(x, w, b)
    return mha(FirstThird(p), SecondThird(p), LastThird(p), m)


@pattern
def MaskedPackedSelfAttention(x, w, b, m, mha: pypm.Op):  # noqa: F811
    p, q, k, v, split = var(), var(), var(), var(), op_var()
    assert mha.name == "multi_head_attention"
    assert q <= split(p)[0]
    assert k <= split(p)[1]
    assert v <= split(p)[2]
    assert split.name == "split"
    assert p <= PackedProjection(x, w, b)
    assert p.shape.rank == 3 and split.attrs.axis in (2, -1)
    assert q.shape[2] == k.shape[2] and v.shape[2] == q.shape[2] and p.shape[2] == 3 * q.shape[2]
    return mha(q, k, v, m)


@rule(PackedSelfAttention)
def fuse_packed_qkv_attention(x, w, b, mha: pypm.Op):
    assert x.shape.rank == 3 and w.shape[0] == x.shape[2]
    return QkvAttention(x, w, b, num_heads=mha.attrs.num_heads, scale=mha.attrs.scale)


@rule(MaskedPackedSelfAttention)
def fuse_masked_packed_qkv_attention(x, w, b, m, mha: pypm.Op):
    assert x.shape.rank == 3 and w.shape[0] == x.shape[2]
    return QkvAttention(x, w, b, m, num_heads=mha.attrs.num_heads, scale=mha.attrs.scale)


# ---- sequence-first attention -----------------------------------------------------------------
# nn.MultiheadAttention (torchvision's ViT, nn.Transformer* layers) works on (S, B, D): heads are
# split as view(S, B*N, H).transpose(0, 1) then viewed as (B, N, S, H) for SDPA, and merged back
# with permute(2, 0, 1, 3).view(S*B, D). Both exporters write the key's transpose as for BERT
# (a swap of the last two axes, or through the (B*N, H, L) tensor). The replacement turns q, k, v
# into (B, S, D) for the fused kernel and its output back into (S, B, D); with B = 1 (ViT
# inference) those transposes move no data.
@pattern
def SeqFirstFlatHeads(x, r):
    """(S, B, D) -> (B*N, S, H). r's middle axis must be a multiple of B so that each row of D
    splits into whole heads."""
    assert r <= Reshape(x)
    assert x.shape.rank == 3 and r.shape.rank == 3
    assert r.shape[0] == x.shape[0] and r.shape[1] % x.shape[1] == 0
    assert r.shape[1] * r.shape[2] == x.shape[1] * x.shape[2]
    return Transpose(r, perm=[1, 0, 2])


@pattern
def SeqFirstHeads(x, r):
    """(S, B, D) -> (B, N, S, H)."""
    f = var()
    assert f <= Reshape(SeqFirstFlatHeads(x, r))
    assert f.shape.rank == 4 and f.shape[0] == x.shape[1] and f.shape[2] == x.shape[0]
    assert f.shape[0] * f.shape[1] == r.shape[1] and f.shape[3] == r.shape[2]
    return f


@pattern
def SeqFirstKeysTransposed(k, r):
    """(L, B, D) -> (B, N, H, L): the heads, then a swap of the last two axes (TorchScript)."""
    return Transpose(SeqFirstHeads(k, r), perm=[0, 1, 3, 2])


@pattern
def SeqFirstKeysTransposed(k, r):  # noqa: F811 - dynamo: (B*N, L, H) -> (B*N, H, L) -> 4-d
    t = var()
    assert t <= Reshape(Transpose(SeqFirstFlatHeads(k, r), perm=[0, 2, 1]))
    assert t.shape.rank == 4 and t.shape[0] == k.shape[1] and t.shape[3] == k.shape[0]
    assert t.shape[0] * t.shape[1] == r.shape[1] and t.shape[2] == r.shape[2]
    return t


@pattern
def SeqFirstMergeHeads(o, y):
    """(B, N, S, H) -> (S, B, N, H) -> (S*B, D) or (S, B, D): each row of y is one position of
    one batch element, whole."""
    assert y <= Reshape(Transpose(o, perm=[2, 0, 1, 3]))
    assert o.shape.rank == 4 and y.shape[-1] == o.shape[1] * o.shape[3]
    return y


@pattern
def SeqFirstAttentionSplitScale(y, q, k, v, qr, kr, vr, c, c2):
    scores = MatMul(Mul(SeqFirstHeads(q, qr), c), Mul(SeqFirstKeysTransposed(k, kr), c2),
                    activation="none")
    probs = NanGuard(KeySoftmax(scores))
    return SeqFirstMergeHeads(MatMul(probs, SeqFirstHeads(v, vr), activation="none"), y)


@pattern
def MaskedSeqFirstAttentionSplitScale(y, q, k, v, qr, kr, vr, c, c2, m):
    scores = MatMul(Mul(SeqFirstHeads(q, qr), c), Mul(SeqFirstKeysTransposed(k, kr), c2),
                    activation="none")
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return SeqFirstMergeHeads(MatMul(probs, SeqFirstHeads(v, vr), activation="none"), y)


@pattern
def SeqFirstAttentionMulScale(y, q, k, v, qr, kr, vr, c):
    scores = Mul(MatMul(SeqFirstHeads(q, qr), SeqFirstKeysTransposed(k, kr), activation="none"),
                 c)
    probs = NanGuard(KeySoftmax(scores))
    return SeqFirstMergeHeads(MatMul(probs, SeqFirstHeads(v, vr), activation="none"), y)


@pattern
def MaskedSeqFirstAttentionMulScale(y, q, k, v, qr, kr, vr, c, m):
    scores = Mul(MatMul(SeqFirstHeads(q, qr), SeqFirstKeysTransposed(k, kr), activation="none"),
                 c)
    probs = NanGuard(KeySoftmax(Plus(scores, m)))
    return SeqFirstMergeHeads(MatMul(probs, SeqFirstHeads(v, vr), activation="none"), y)


def seq_first_attention(y, q, k, v, qr, scale, m=None):
    """MultiHeadAttention on (B, S, D) views of the sequence-first q, k, v, its output back in
    y's shape. A plain helper (not a pattern): the rules below call it while they are traced."""
    inputs = [Transpose(q, perm=[1, 0, 2]), Transpose(k, perm=[1, 0, 2]),
              Transpose(v, perm=[1, 0, 2])]
    if m is not None:
        inputs.append(m)
    fused = MultiHeadAttention(*inputs, num_heads=qr.shape[1] // q.shape[1], scale=scale)
    return Reshape(Transpose(fused, perm=[1, 0, 2]), shape=y.shape)


@rule(SeqFirstAttentionSplitScale)
def fuse_seq_first_attention_split_scale(y, q, k, v, qr, kr, vr, c, c2):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert c2.op == "constant" and c2.shape.numel == 1 and c2.attrs.value != 0
    assert q.shape[1] == k.shape[1] and q.shape[1] == v.shape[1] and k.shape[0] == v.shape[0]
    assert qr.shape[1] == kr.shape[1] and qr.shape[1] == vr.shape[1]
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    return seq_first_attention(y, q, k, v, qr, c.attrs.value * c2.attrs.value)


@rule(MaskedSeqFirstAttentionSplitScale)
def fuse_masked_seq_first_attention_split_scale(y, q, k, v, qr, kr, vr, c, c2, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert c2.op == "constant" and c2.shape.numel == 1 and c2.attrs.value != 0
    assert q.shape[1] == k.shape[1] and q.shape[1] == v.shape[1] and k.shape[0] == v.shape[0]
    assert qr.shape[1] == kr.shape[1] and qr.shape[1] == vr.shape[1]
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert m.shape.rank == 4 and m.shape[0] in (1, q.shape[1])
    assert m.shape[1] in (1, qr.shape[1] // q.shape[1])
    assert m.shape[2] in (1, q.shape[0]) and m.shape[3] == k.shape[0]
    return seq_first_attention(y, q, k, v, qr, c.attrs.value * c2.attrs.value, m)


@rule(SeqFirstAttentionMulScale)
def fuse_seq_first_attention_mul_scale(y, q, k, v, qr, kr, vr, c):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert q.shape[1] == k.shape[1] and q.shape[1] == v.shape[1] and k.shape[0] == v.shape[0]
    assert qr.shape[1] == kr.shape[1] and qr.shape[1] == vr.shape[1]
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    return seq_first_attention(y, q, k, v, qr, c.attrs.value)


@rule(MaskedSeqFirstAttentionMulScale)
def fuse_masked_seq_first_attention_mul_scale(y, q, k, v, qr, kr, vr, c, m):
    assert c.op == "constant" and c.shape.numel == 1 and c.attrs.value != 0
    assert q.shape[1] == k.shape[1] and q.shape[1] == v.shape[1] and k.shape[0] == v.shape[0]
    assert qr.shape[1] == kr.shape[1] and qr.shape[1] == vr.shape[1]
    assert qr.shape[2] == kr.shape[2] and qr.shape[2] == vr.shape[2]
    assert m.shape.rank == 4 and m.shape[0] in (1, q.shape[1])
    assert m.shape[1] in (1, qr.shape[1] // q.shape[1])
    assert m.shape[2] in (1, q.shape[0]) and m.shape[3] == k.shape[0]
    return seq_first_attention(y, q, k, v, qr, c.attrs.value, m)


# ---- RMSNorm ----------------------------------------------------------------------------------
@pattern
def Square(x):
    return Pow(x, 2.0)


@pattern
def Square(x):  # noqa: F811
    return EwMul(x, x)


@pattern
def MeanSquarePlusEps(x, m, e):
    """mean(x^2) + eps, m the ReduceMean (its axes are checked by the rule)."""
    assert m <= ReduceMean(Square(x), keepdims=1)
    return Add(m, e)


@pattern
def MeanSquarePlusEps(x, m, e):  # noqa: F811 - eps first
    assert m <= ReduceMean(Square(x), keepdims=1)
    return Add(e, m)


@pattern
def InverseRms(x, m, e):
    """1 / sqrt(mean(x^2) + eps)."""
    return Opaque(Sqrt(MeanSquarePlusEps(x, m, e)), op_type="Reciprocal")


@pattern
def InverseRms(x, m, e):  # noqa: F811
    return Div(1.0, Sqrt(MeanSquarePlusEps(x, m, e)))


@pattern
def InverseRms(x, m, e):  # noqa: F811
    return Pow(MeanSquarePlusEps(x, m, e), -0.5)


@pattern
def Times(a, b):
    """a * b in either order; import writes EwMul when the two shapes are equal."""
    return Mul(a, b)


@pattern
def Times(a, b):  # noqa: F811
    return Mul(b, a)


@pattern
def Times(a, b):  # noqa: F811
    return EwMul(a, b)


@pattern
def Times(a, b):  # noqa: F811
    return EwMul(b, a)


@pattern
def Normalized(x, m, e):
    """x / rms(x)."""
    r = var()
    assert r <= InverseRms(x, m, e)
    return Times(x, r)


@pattern
def Normalized(x, m, e):  # noqa: F811
    return Div(x, Sqrt(MeanSquarePlusEps(x, m, e)))


@pattern
def RMSNormalization(x, w, m, e):
    n = var()
    assert n <= Normalized(x, m, e)
    return Times(w, n)


@rule(RMSNormalization)
def fuse_rms_norm(x, w, m, e):
    assert e.op == "constant" and e.shape.numel == 1 and e.attrs.value >= 0
    assert w.shape.rank == 1 and x.shape.rank >= 1 and w.shape[0] == x.shape[-1]
    # The mean is over the last axis only (ReduceMean keeps the axes as the exporter wrote them).
    last = m.attrs.axes == [-1]
    for rank in (1, 2, 3, 4, 5):
        last = last or (x.shape.rank == rank and m.attrs.axes == [rank - 1])
    assert last
    return RMSNorm(x, w, axis=-1, epsilon=e.attrs.value)


# ---- LayerNormalization from its decomposed form ------------------------------------------------
# What the TorchScript exporter writes for nn.LayerNorm before opset 17 (and what hand-written
# layer norms, such as old BERT implementations, export to): (x - mean(x)) / sqrt(var(x) + eps)
# * g + b, the variance as the mean of the squared deviation. The result is the standard ONNX
# LayerNormalization (opset 17; export writes the decomposed form again for older opsets), so the
# residual-norm fusions and the session fusion guards see the norm too.
@pattern
def Standardized(x, m, v, e):
    """(x - m) / sqrt(v + e) where m = mean(x) and v = mean((x - m)^2) (axes checked by the
    rule)."""
    d = var()
    assert d <= Sub(x, m)
    assert m <= ReduceMean(x, keepdims=1)
    assert v <= ReduceMean(Square(d), keepdims=1)
    return Div(d, Sqrt(Plus(v, e)))


@pattern
def DecomposedLayerNorm(x, g, b, m, v, e):
    n, t = var(), var()
    assert t <= Times(n, g)
    assert n <= Standardized(x, m, v, e)
    return Plus(t, b)


@rule(DecomposedLayerNorm)
def fuse_layer_norm(x, g, b, m, v, e):
    assert e.op == "constant" and e.shape.numel == 1 and e.attrs.value >= 0
    assert x.shape.rank >= 1
    assert g.shape.rank == 1 and g.shape[0] == x.shape[-1]
    assert b.shape.rank == 1 and b.shape[0] == x.shape[-1]
    # Both means over the last axis only (ReduceMean keeps the axes as the exporter wrote them).
    last = m.attrs.axes == [-1] and v.attrs.axes == [-1]
    for rank in (1, 2, 3, 4, 5):
        last = last or (x.shape.rank == rank and m.attrs.axes == [rank - 1] and
                        v.attrs.axes == [rank - 1])
    assert last
    return LayerNorm(x, g, b, axis=-1, epsilon=e.attrs.value)


# ---- residual normalizations (SkipLayerNormalization, SkipSimplifiedLayerNormalization) ---------
# A residual add, then the norm: norm(x + skip). In a pre-norm block (GPT-2, ViT, Llama) the sum s
# also feeds the next residual add, so the rule replaces s too, with the fused kernel's second
# output; in a post-norm block (BERT) nothing else reads s. The norm is an operator variable so
# that the rule reads the attributes of the norm it matched (in the e-graph a value's guards read
# its class's first producer, which for an RMSNorm is the exporter's Mul): the RMSNorm rule above
# puts rms_norm into that class, and this pattern matches it there.
@pattern
def ResidualNorm(s, x, skip, w, norm: pypm.Op):
    """rms_norm(x + skip, w)."""
    assert norm.name == "rms_norm"
    assert s <= Plus(x, skip)
    return norm(s, w)


@pattern
def ResidualNormWithBias(s, x, skip, g, b, norm: pypm.Op):
    """layernorm(x + skip, g, b)."""
    assert norm.name == "layernorm"
    assert s <= Plus(x, skip)
    return norm(s, g, b)


# ONNX Runtime's kernels take x and skip of one shape, (tokens, D) or (B, S, D), or skip (1, S, D)
# shared by every batch row (BERT's position embeddings when the batch is dynamic), normalize over
# the last axis and take one parameter per feature.
@rule(ResidualNormWithBias)
def fuse_skip_layer_norm(s, x, skip, g, b, norm: pypm.Op):
    assert x.shape.rank in (2, 3) and s.shape == x.shape
    assert skip.shape == x.shape or (x.shape.rank == 3 and skip.shape.rank == 3 and
                                     skip.shape[0] == 1 and skip.shape[1] == x.shape[1] and
                                     skip.shape[2] == x.shape[2])
    assert norm.attrs.axis == -1 or norm.attrs.axis == x.shape.rank - 1
    assert g.shape.rank == 1 and g.shape[0] == x.shape[-1]
    assert b.shape.rank == 1 and b.shape[0] == x.shape[-1]
    fused = SkipLayerNorm(x, skip, g, b, epsilon=norm.attrs.epsilon)
    return fused[0], (s, fused[1])


@rule(ResidualNorm)
def fuse_skip_rms_norm(s, x, skip, w, norm: pypm.Op):
    assert x.shape.rank in (2, 3) and s.shape == x.shape
    assert skip.shape == x.shape or (x.shape.rank == 3 and skip.shape.rank == 3 and
                                     skip.shape[0] == 1 and skip.shape[1] == x.shape[1] and
                                     skip.shape[2] == x.shape[2])
    assert norm.attrs.axis == -1 or norm.attrs.axis == x.shape.rank - 1
    assert w.shape.rank == 1 and w.shape[0] == x.shape[-1]
    fused = SkipRMSNorm(x, skip, w, epsilon=norm.attrs.epsilon)
    return fused[0], (s, fused[1])


# ---- GELU family ------------------------------------------------------------------------------
@pattern
def ErfOfScaled(x):
    """erf(x / sqrt 2), the division written as such (TorchScript) or as a product by 1/sqrt 2."""
    return Erf(Div(x, 1.4142135623730951))


@pattern
def ErfOfScaled(x):  # noqa: F811
    return Erf(Times(x, 0.7071067811865476))


@pattern
def OnePlusErf(x):
    return Plus(ErfOfScaled(x), 1.0)


@pattern
def ErfGelu(x):
    """x * (1 + erf(x / sqrt 2)) / 2 with the half in any of the three places exporters put it."""
    return Times(Times(x, OnePlusErf(x)), 0.5)


@pattern
def ErfGelu(x):  # noqa: F811 - (x / 2) * (1 + erf)
    return Times(Times(x, 0.5), OnePlusErf(x))


@pattern
def ErfGelu(x):  # noqa: F811 - x * ((1 + erf) / 2)
    return Times(x, Times(OnePlusErf(x), 0.5))


@pattern
def AnyGelu(x):
    """The exact GELU: the ONNX operator (opset 20, what the dynamo exporter writes) or spelled
    out (TorchScript at opset 17)."""
    return Gelu(x)


@pattern
def AnyGelu(x):  # noqa: F811
    return ErfGelu(x)


@pattern
def BiasedGelu(x, b, s):
    """gelu(x + b): a linear layer's bias add, then the GELU (BERT's and ViT's feed-forward)."""
    assert s <= Plus(x, b)
    return AnyGelu(s)


@rule(BiasedGelu)
def fuse_bias_gelu(x, b, s):
    # ONNX Runtime's BiasGelu takes a 1-d bias along the last axis; x must be the sum's shape
    # (the bias broadcasts, x does not).
    assert b.shape.rank == 1 and x.shape.rank >= 1 and x.shape.rank == s.shape.rank
    assert x.shape.numel == s.shape.numel and b.shape[0] == x.shape[-1]
    return BiasGelu(x, b)


@pattern
def Cube(x):
    return Pow(x, 3.0)


@pattern
def Cube(x):  # noqa: F811 - x * x * x
    square = var()
    assert square <= Times(x, x)
    return Times(square, x)


@pattern
def TanhGeluInner(x):
    """sqrt(2 / pi) * (x + 0.044715 x^3)."""
    return Times(Plus(x, Times(Cube(x), 0.044715)), 0.7978845608028654)


@pattern
def OnePlusTanh(x):
    return Plus(Tanh(TanhGeluInner(x)), 1.0)


@pattern
def TanhGelu(x):
    """GPT-2's tanh approximation, x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2, with the
    half in any of three places (both exporters write (x * 0.5) * (1 + tanh))."""
    return Times(Times(x, 0.5), OnePlusTanh(x))


@pattern
def TanhGelu(x):  # noqa: F811
    return Times(Times(x, OnePlusTanh(x)), 0.5)


@pattern
def TanhGelu(x):  # noqa: F811
    return Times(x, Times(OnePlusTanh(x), 0.5))


@rule(TanhGelu)
def fuse_fast_gelu(x):
    return FastGelu(x)


@pattern
def SiLU(x):
    """x * sigmoid(x) (SiLU, swish: Llama's MLP gate)."""
    return Times(x, Sigmoid(x))


@rule(SiLU)
def fuse_silu(x):
    return QuickGelu(x, alpha=1.0)


@pattern
def ScaledSwish(x, a):
    """x * sigmoid(a * x) (QuickGELU is a = 1.702: CLIP's)."""
    return Times(x, Sigmoid(Times(x, a)))


@rule(ScaledSwish)
def fuse_quick_gelu(x, a):
    assert a.op == "constant" and a.shape.numel == 1
    return QuickGelu(x, alpha=a.attrs.value)


@pattern
def RotateHalf(x):
    """concat(-x[..., H/2:], x[..., :H/2]) on the last axis of x (B, N, S, H). The slices are
    operator variables, so the guards read the nodes matched (a part of a split in the e-graph is
    seen as a slice of each tensor it was cut from: a class may hold several)."""
    low, high = op_var(), op_var()
    assert low.name == "slice" and high.name == "slice"
    assert x.shape.rank == 4 and x.shape[3] % 2 == 0
    assert low.attrs.axis == 3 and low.attrs.start == 0 and low.attrs.end == x.shape[3] // 2
    assert high.attrs.axis == 3 and high.attrs.start == x.shape[3] // 2
    assert high.attrs.end == x.shape[3]
    return Concat(Opaque(high(x), op_type="Neg"), low(x), axis=3)


@pattern
def Rotary(x, c, s):
    """x * cos + rotate_half(x) * sin: both exporters, Llama's apply_rotary_pos_emb."""
    return Plus(Times(x, c), Times(RotateHalf(x), s))


@rule(Rotary)
def fuse_rotary_embedding(x, c, s):
    # The tables must be (S, H) along x's last two axes, 1 elsewhere (no batch of positions).
    # ONNX Runtime's CPU kernel computes float32 and float16 (no bfloat16).
    assert x.dtype == "f32" or x.dtype == "f16"
    assert c.shape.rank >= 2 and s.shape.rank >= 2
    assert c.shape[-1] == x.shape[3] and c.shape[-2] == x.shape[2]
    assert c.shape.numel == x.shape[2] * x.shape[3]
    assert s.shape[-1] == x.shape[3] and s.shape[-2] == x.shape[2]
    assert s.shape.numel == x.shape[2] * x.shape[3]
    return RotaryEmbedding(x, c, s)


# ---- convolutions -----------------------------------------------------------------------------
# One step at a time: the bias into the conv, then a residual into the fused conv, then the
# activation. Each step reads the fused conv the step before wrote, so greedy rewriting (`pm
# apply`, which meets the bias add before the activation) reaches the whole kernel too. The convs
# are operator variables so that the rules read the attributes of the node they matched (a
# value's own attributes are its class's first producer's in the e-graph).
@pattern
def BiasedConv(x, w, b, conv: pypm.Op):
    """conv2d(x, w) + b, with no activation inside the conv."""
    assert conv.name == "conv2d" and conv.attrs.activation == "none"
    return Plus(conv(x, w), b)


@pattern
def ResidualConv(y, x, w, b, z, fused: pypm.Op):
    """fused_conv(x, w, b) + z: a residual added to a conv with its bias and nothing else."""
    assert y <= fused(x, w, b)
    assert fused.name == "fused_conv" and fused.attrs.activation == "none"
    return Plus(y, z)


# The activations FusedConv takes; the last three carry parameters (ONNX Runtime's
# activation_params), which the rules below read from the matched operator.
CONV_ACTIVATIONS = ("relu", "sigmoid", "tanh", "clip", "leaky_relu", "hard_sigmoid")


@pattern
def ActivatedConv(x, w, b, fused: pypm.Op, act: pypm.Op):
    assert act.name in CONV_ACTIVATIONS
    assert fused.name == "fused_conv" and fused.attrs.activation == "none"
    return act(fused(x, w, b))


@pattern
def ActivatedResidualConv(x, w, b, z, fused: pypm.Op, act: pypm.Op):
    assert act.name in CONV_ACTIVATIONS
    assert fused.name == "fused_conv" and fused.attrs.activation == "none"
    return act(fused(x, w, b, z))


@rule(BiasedConv)
def fuse_conv_bias(x, w, b, conv: pypm.Op):
    # b holds one value per output channel, along NCHW's channel axis.
    assert b.shape.numel == w.shape[0]
    assert b.shape.rank == 1 or (b.shape.rank in (3, 4) and b.shape[-3] == w.shape[0])
    return FusedConv(x, w, b, stride_h=conv.attrs.stride_h, stride_w=conv.attrs.stride_w,
                     padding=conv.attrs.padding)


@rule(ResidualConv)
def fuse_conv_residual(y, x, w, b, z, fused: pypm.Op):
    assert z.shape == y.shape  # a whole residual, not a broadcast one
    return FusedConv(x, w, b, z, stride_h=fused.attrs.stride_h, stride_w=fused.attrs.stride_w,
                     padding=fused.attrs.padding)


def activated_conv(inputs, fused, act, alpha=0.0, beta=0.0):
    """The fused conv `fused` (on `inputs`) with the activation `act` and its parameters. A plain
    helper (not a pattern): the rules below call it while they are traced."""
    return FusedConv(*inputs, stride_h=fused.attrs.stride_h, stride_w=fused.attrs.stride_w,
                     padding=fused.attrs.padding, activation=act.name, activation_alpha=alpha,
                     activation_beta=beta)


@rule(ActivatedConv)
def fuse_conv_activation(x, w, b, fused: pypm.Op, act: pypm.Op):
    assert act.name in ("relu", "sigmoid", "tanh")
    return activated_conv([x, w, b], fused, act)


@rule(ActivatedConv)
def fuse_conv_clip(x, w, b, fused: pypm.Op, act: pypm.Op):
    assert act.name == "clip"
    return activated_conv([x, w, b], fused, act, act.attrs.min, act.attrs.max)


@rule(ActivatedConv)
def fuse_conv_leaky_relu(x, w, b, fused: pypm.Op, act: pypm.Op):
    assert act.name == "leaky_relu"
    return activated_conv([x, w, b], fused, act, act.attrs.alpha)


@rule(ActivatedConv)
def fuse_conv_hard_sigmoid(x, w, b, fused: pypm.Op, act: pypm.Op):
    assert act.name == "hard_sigmoid"
    return activated_conv([x, w, b], fused, act, act.attrs.alpha, act.attrs.beta)


@rule(ActivatedResidualConv)
def fuse_residual_conv_activation(x, w, b, z, fused: pypm.Op, act: pypm.Op):
    assert act.name in ("relu", "sigmoid", "tanh")
    return activated_conv([x, w, b, z], fused, act)


@rule(ActivatedResidualConv)
def fuse_residual_conv_clip(x, w, b, z, fused: pypm.Op, act: pypm.Op):
    assert act.name == "clip"
    return activated_conv([x, w, b, z], fused, act, act.attrs.min, act.attrs.max)


@rule(ActivatedResidualConv)
def fuse_residual_conv_leaky_relu(x, w, b, z, fused: pypm.Op, act: pypm.Op):
    assert act.name == "leaky_relu"
    return activated_conv([x, w, b, z], fused, act, act.attrs.alpha)


@rule(ActivatedResidualConv)
def fuse_residual_conv_hard_sigmoid(x, w, b, z, fused: pypm.Op, act: pypm.Op):
    assert act.name == "hard_sigmoid"
    return activated_conv([x, w, b, z], fused, act, act.attrs.alpha, act.attrs.beta)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "onnxruntime.pmb")
