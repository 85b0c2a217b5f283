"""The evaluation's models and the TENSAT paper's published numbers for them (bench/paper.py).

Data only: the settings take the default models from here, the report and the plots
(bench/paper_plots.py) quote the paper's numbers and labels, so each is written once.
"""

PAPER_MODELS = ["bert", "nasrnn", "nasnet_a", "resnext50", "inception_v3", "squeezenet", "vgg19"]
EXTRA_MODELS = ["resnet50", "mobilenet_v2", "transformer"]
LABELS = {"bert": "BERT", "nasrnn": "NasRNN", "nasnet_a": "NasNet-A", "resnext50": "ResNeXt-50",
          "inception_v3": "Inception-v3", "squeezenet": "SqueezeNet", "vgg19": "VGG-19",
          "resnet50": "ResNet-50", "mobilenet_v2": "MobileNet-v2", "transformer": "Transformer"}

# The paper's numbers (TENSAT, Yang et al., MLSys 2021; T4 GPU, cuDNN-measured costs), from
# /work/shared/docs/FACTS.md and the paper text. None: the paper gives no number (or our text copy
# of the paper does not have it legibly).
PAPER_T1 = {  # model: (TASO search s, TENSAT search s, TASO speedup %, TENSAT speedup %)
    "bert": (13.6, 1.4, 8.5, 9.2), "resnext50": (25.3, 0.7, 5.5, 8.8),
    "nasnet_a": (1226, 10.6, 1.9, 7.3), "nasrnn": (177.3, 0.5, 45.4, 68.9),
    "inception_v3": (68.6, 5.1, 6.3, 10.0), "squeezenet": (16.4, 0.3, 6.7, 24.5),
    "vgg19": (8.9, 0.4, 8.9, 8.9)}
PAPER_T3 = {  # model: (original ms, greedy ms, ILP ms); the ILP column is not legible in our copy
    "bert": (1.88, 1.88, None), "nasrnn": (1.85, 1.15, None), "nasnet_a": (17.8, 22.5, None)}
PAPER_T4 = {  # (model, k_multi): (real s, int s, without cycle constraints s); "timeout" = > 1 h
    ("bert", 1): (0.96, 0.98, None), ("nasrnn", 1): (1116, 1137, None),
    ("nasnet_a", 1): (424, 438, None), ("bert", 2): ("timeout", "timeout", None),
    ("nasrnn", 2): ("timeout", "timeout", None), ("nasnet_a", 2): ("timeout", "timeout", None)}
PAPER_T5 = {("bert", 1): (0.18, None)}  # (model, k_multi): (vanilla s, efficient s)
