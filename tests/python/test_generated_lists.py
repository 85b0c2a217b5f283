"""Lists written by hand beside the code that knows them must say what the program says: the
fused kernels --fusions takes (generated from driver::kContribOperators in the CLI's help) in
the Python API's docstring and in the status page's operator list."""
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]


def fusion_names_from_help(saturate) -> list[str]:
    result = saturate("optimize", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    match = re.search(r"the kernels it may fuse into: (.*?), or none", text)
    assert match, text
    return [name.strip() for name in match.group(1).split(",")]


def test_the_help_lists_every_fusion_the_program_takes(saturate):
    names = fusion_names_from_help(saturate)
    assert len(names) >= 11 and "multi_head_attention" in names
    for name in names:  # each one is accepted
        result = saturate("optimize", "squeezenet", "--reduced", "--extract", "greedy",
                          "--target", "onnxruntime", "--fusions", name, "--iter-limit", "1")
        assert result.returncode == 0, (name, result.stderr)
    wrong = saturate("optimize", "squeezenet", "--reduced", "--target", "onnxruntime",
                     "--fusions", "no_such_kernel")
    assert wrong.returncode != 0


def test_the_python_docstring_lists_the_same_fusions(saturate):
    source = (REPO / "python" / "saturate" / "onnx_api.py").read_text()
    docstring = " ".join(source.split())
    match = re.search(r"``\[(\"[a-z_]+\"(?:, \"[a-z_]+\")*)\]`` or ``\[\"none\"\]``", docstring)
    assert match, "the fusions list is gone from optimize_onnx's docstring"
    listed = re.findall(r"\"([a-z_]+)\"", match.group(1))
    assert listed == fusion_names_from_help(saturate)


def test_the_status_page_lists_the_same_kernels(saturate):
    status = " ".join((REPO / "docs" / "STATUS.md").read_text().split())
    match = re.search(r"and ONNX Runtime's kernels ([a-z_, ]+)\)", status)
    assert match, "the kernel list is gone from docs/STATUS.md's ir row"
    listed = [name.strip() for name in match.group(1).split(",")]
    assert listed == fusion_names_from_help(saturate)
