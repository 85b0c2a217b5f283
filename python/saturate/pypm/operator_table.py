"""pypm's operator table, generated from the IR's registry (src/ir/operators.cpp) by
``python3 -m saturate.pypm.generate_operators SATURATE`` from ``saturate ops --json``. Do not
edit: change the registry, rebuild and regenerate (tests/python/pypm/test_pypm_ops_table.py
fails while this file is stale).

Each entry: (IR name, constructor, least inputs, most inputs or None for variadic, input names,
attributes, outputs or None when the attributes decide); an attribute is (name, kind) when
required, (name, kind, default) otherwise.
"""

OPERATORS = (
    ('input', 'Input', 0, 0, (), (('shape', 'ints'), ('dtype', 'string', 'f32')), 1),
    ('weight', 'Weight', 0, 0, (), (('shape', 'ints'), ('dtype', 'string', 'f32')), 1),
    ('constant', 'Constant', 0, 0, (), (
        ('shape', 'ints'),
        ('value', 'float'),
        ('dtype', 'string', 'f32'),
    ), 1),
    ('ewadd', 'EwAdd', 2, 2, ('a', 'b'), (), 1),
    ('ewmul', 'EwMul', 2, 2, ('a', 'b'), (), 1),
    ('matmul', 'MatMul', 2, 2, ('a', 'b'), (('activation', 'activation', 'none'),), 1),
    ('conv2d', 'Conv2d', 2, 2, ('input', 'weight'), (
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
    ), 1),
    ('relu', 'Relu', 1, 1, ('x',), (), 1),
    ('tanh', 'Tanh', 1, 1, ('x',), (), 1),
    ('sigmoid', 'Sigmoid', 1, 1, ('x',), (), 1),
    ('poolmax', 'PoolMax', 1, 1, ('input',), (
        ('kernel_h', 'int'),
        ('kernel_w', 'int'),
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
    ), 1),
    ('poolavg', 'PoolAvg', 1, 1, ('input',), (
        ('kernel_h', 'int'),
        ('kernel_w', 'int'),
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
    ), 1),
    ('transpose', 'Transpose', 1, 1, ('x',), (('perm', 'ints'),), 1),
    ('enlarge', 'Enlarge', 2, 2, ('kernel', 'reference'), (), 1),
    ('concat', 'Concat', 1, None, ('inputs',), (('axis', 'int'),), 1),
    ('split', 'Split', 1, 1, ('x',), (('axis', 'int'), ('sizes', 'ints')), None),
    ('merge', 'Merge', 1, 1, ('weight',), (('count', 'int'),), 1),
    ('reshape', 'Reshape', 1, 1, ('x',), (('shape', 'ints'),), 1),
    ('batchnorm', 'BatchNorm', 5, 5, ('input', 'scale', 'bias', 'mean', 'var'), (
        ('epsilon', 'float', 1e-05),
    ), 1),
    ('noop', 'Noop', 2, 2, ('a', 'b'), (), 1),
    ('add', 'Add', 2, 2, ('a', 'b'), (), 1),
    ('mul', 'Mul', 2, 2, ('a', 'b'), (), 1),
    ('sub', 'Sub', 2, 2, ('a', 'b'), (), 1),
    ('div', 'Div', 2, 2, ('a', 'b'), (), 1),
    ('pow', 'Pow', 2, 2, ('a', 'b'), (), 1),
    ('sqrt', 'Sqrt', 1, 1, ('x',), (), 1),
    ('erf', 'Erf', 1, 1, ('x',), (), 1),
    ('exp', 'Exp', 1, 1, ('x',), (), 1),
    ('gelu', 'Gelu', 1, 1, ('x',), (), 1),
    ('clip', 'Clip', 1, 1, ('x',), (('min', 'float'), ('max', 'float')), 1),
    ('leaky_relu', 'LeakyRelu', 1, 1, ('x',), (('alpha', 'float', 0.01),), 1),
    ('hard_sigmoid', 'HardSigmoid', 1, 1, ('x',), (
        ('alpha', 'float', 0.2),
        ('beta', 'float', 0.5),
    ), 1),
    ('softmax', 'Softmax', 1, 1, ('x',), (('axis', 'int', -1),), 1),
    ('layernorm', 'LayerNorm', 3, 3, ('x', 'scale', 'bias'), (
        ('axis', 'int', -1),
        ('epsilon', 'float', 1e-05),
    ), 1),
    ('reduce_mean', 'ReduceMean', 1, 1, ('x',), (('axes', 'ints'), ('keepdims', 'int', 1)), 1),
    ('attention', 'Attention', 3, 3, ('q', 'k', 'v'), (('scale', 'float', 1.0),), 1),
    ('multi_head_attention', 'MultiHeadAttention', 3, 4, ('q', 'k', 'v', 'bias'), (
        ('num_heads', 'int'),
        ('scale', 'float'),
    ), 1),
    ('qkv_attention', 'QkvAttention', 3, 4, ('x', 'weight', 'bias', 'attention_bias'), (
        ('num_heads', 'int'),
        ('scale', 'float'),
    ), 1),
    ('rms_norm', 'RMSNorm', 2, 2, ('x', 'scale'), (
        ('axis', 'int', -1),
        ('epsilon', 'float', 1e-05),
    ), 1),
    ('bias_gelu', 'BiasGelu', 2, 2, ('x', 'bias'), (), 1),
    ('fast_gelu', 'FastGelu', 1, 1, ('x',), (), 1),
    ('quick_gelu', 'QuickGelu', 1, 1, ('x',), (('alpha', 'float', 1.702),), 1),
    ('skip_layer_norm', 'SkipLayerNorm', 4, 4, ('x', 'skip', 'scale', 'bias'), (
        ('epsilon', 'float', 1e-05),
    ), 2),
    ('skip_rms_norm', 'SkipRMSNorm', 3, 3, ('x', 'skip', 'scale'), (
        ('epsilon', 'float', 1e-05),
    ), 2),
    ('rotary_embedding', 'RotaryEmbedding', 3, 3, ('x', 'cos', 'sin'), (), 1),
    ('fused_conv', 'FusedConv', 3, 4, ('input', 'weight', 'bias', 'sum'), (
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
        ('activation_alpha', 'float', 0.0),
        ('activation_beta', 'float', 0.0),
    ), 1),
    ('fused_matmul', 'FusedMatMul', 2, 2, ('a', 'b'), (
        ('alpha', 'float', 1.0),
        ('trans_a', 'int', 0),
        ('trans_b', 'int', 0),
    ), 1),
    ('pad', 'Pad', 1, 1, ('x',), (('pads', 'ints'),), 1),
    ('slice', 'Slice', 1, 1, ('x',), (('axis', 'int'), ('start', 'int'), ('end', 'int')), 1),
    ('opaque', 'Opaque', 0, None, ('inputs',), (
        ('op_type', 'string'),
        ('domain', 'string', ''),
        ('onnx_attributes', 'string', ''),
        ('output_types', 'string'),
    ), None),
)
