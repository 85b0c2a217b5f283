"""pypm's operator table, generated from the IR's registry (src/ir/operators.cpp) by
``python3 -m saturate.pypm.generate_operators SATURATE`` from ``saturate ops --json``. Do not
edit: change the registry, rebuild and regenerate (tests/python/pypm/test_pypm_ops_table.py
fails while this file is stale).

Each entry: (IR name, constructor, least inputs, most inputs or None for variadic, input names,
attributes); an attribute is (name, kind) when required, (name, kind, default) otherwise.
"""

OPERATORS = (
    ('input', 'Input', 0, 0, (), (('shape', 'ints'), ('dtype', 'string', 'f32'))),
    ('weight', 'Weight', 0, 0, (), (('shape', 'ints'), ('dtype', 'string', 'f32'))),
    ('constant', 'Constant', 0, 0, (), (
        ('shape', 'ints'),
        ('value', 'float'),
        ('dtype', 'string', 'f32'),
    )),
    ('ewadd', 'EwAdd', 2, 2, ('a', 'b'), ()),
    ('ewmul', 'EwMul', 2, 2, ('a', 'b'), ()),
    ('matmul', 'MatMul', 2, 2, ('a', 'b'), (('activation', 'activation', 'none'),)),
    ('conv2d', 'Conv2d', 2, 2, ('input', 'weight'), (
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
    )),
    ('relu', 'Relu', 1, 1, ('x',), ()),
    ('tanh', 'Tanh', 1, 1, ('x',), ()),
    ('sigmoid', 'Sigmoid', 1, 1, ('x',), ()),
    ('poolmax', 'PoolMax', 1, 1, ('input',), (
        ('kernel_h', 'int'),
        ('kernel_w', 'int'),
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
    )),
    ('poolavg', 'PoolAvg', 1, 1, ('input',), (
        ('kernel_h', 'int'),
        ('kernel_w', 'int'),
        ('stride_h', 'int', 1),
        ('stride_w', 'int', 1),
        ('padding', 'padding', 'same'),
        ('activation', 'activation', 'none'),
    )),
    ('transpose', 'Transpose', 1, 1, ('x',), (('perm', 'ints'),)),
    ('enlarge', 'Enlarge', 2, 2, ('kernel', 'reference'), ()),
    ('concat', 'Concat', 1, None, ('inputs',), (('axis', 'int'),)),
    ('split', 'Split', 1, 1, ('x',), (('axis', 'int'), ('sizes', 'ints'))),
    ('merge', 'Merge', 1, 1, ('weight',), (('count', 'int'),)),
    ('reshape', 'Reshape', 1, 1, ('x',), (('shape', 'ints'),)),
    ('batchnorm', 'BatchNorm', 5, 5, ('input', 'scale', 'bias', 'mean', 'var'), (
        ('epsilon', 'float', 1e-05),
    )),
    ('noop', 'Noop', 2, 2, ('a', 'b'), ()),
    ('add', 'Add', 2, 2, ('a', 'b'), ()),
    ('mul', 'Mul', 2, 2, ('a', 'b'), ()),
    ('sub', 'Sub', 2, 2, ('a', 'b'), ()),
    ('div', 'Div', 2, 2, ('a', 'b'), ()),
    ('pow', 'Pow', 2, 2, ('a', 'b'), ()),
    ('sqrt', 'Sqrt', 1, 1, ('x',), ()),
    ('erf', 'Erf', 1, 1, ('x',), ()),
    ('exp', 'Exp', 1, 1, ('x',), ()),
    ('gelu', 'Gelu', 1, 1, ('x',), ()),
    ('clip', 'Clip', 1, 1, ('x',), (('min', 'float'), ('max', 'float'))),
    ('softmax', 'Softmax', 1, 1, ('x',), (('axis', 'int', -1),)),
    ('layernorm', 'LayerNorm', 3, 3, ('x', 'scale', 'bias'), (
        ('axis', 'int', -1),
        ('epsilon', 'float', 1e-05),
    )),
    ('reduce_mean', 'ReduceMean', 1, 1, ('x',), (('axes', 'ints'), ('keepdims', 'int', 1))),
    ('attention', 'Attention', 3, 3, ('q', 'k', 'v'), (('scale', 'float', 1.0),)),
    ('multi_head_attention', 'MultiHeadAttention', 3, 4, ('q', 'k', 'v', 'bias'), (
        ('num_heads', 'int'),
        ('scale', 'float'),
    )),
    ('rms_norm', 'RMSNorm', 2, 2, ('x', 'scale'), (
        ('axis', 'int', -1),
        ('epsilon', 'float', 1e-05),
    )),
    ('bias_gelu', 'BiasGelu', 2, 2, ('x', 'bias'), ()),
    ('fast_gelu', 'FastGelu', 1, 1, ('x',), ()),
    ('quick_gelu', 'QuickGelu', 1, 1, ('x',), (('alpha', 'float', 1.702),)),
    ('skip_layer_norm', 'SkipLayerNorm', 4, 4, ('x', 'skip', 'scale', 'bias'), (
        ('epsilon', 'float', 1e-05),
    )),
    ('skip_rms_norm', 'SkipRMSNorm', 3, 3, ('x', 'skip', 'scale'), (('epsilon', 'float', 1e-05),)),
    ('pad', 'Pad', 1, 1, ('x',), (('pads', 'ints'),)),
    ('opaque', 'Opaque', 0, None, ('inputs',), (
        ('op_type', 'string'),
        ('domain', 'string', ''),
        ('onnx_attributes', 'string', ''),
        ('output_types', 'string'),
    )),
)
