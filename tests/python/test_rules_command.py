"""`saturate rules`: every rule of the shipped library checked numerically, with which ones are
precision-sensitive (their sides differ in float32) and their error in float16; a user's rule
file with a wrong rule is reported and exits 3."""
import json


def test_the_shipped_rules_are_sound_and_the_regrouping_ones_are_named(saturate):
    result = saturate("rules", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["count"] == len(report["rules"]) > 20
    assert report["unsound"] == 0
    by_name = {rule["name"]: rule for rule in report["rules"]}
    assert all(rule["sound"] and rule["cases_checked"] >= 5 for rule in report["rules"])
    assert by_name["matmul-associate"]["exact_in_float32"] is False
    assert 0 < by_name["matmul-associate"]["float16_error"] < 2e-2
    assert by_name["transpose-involution-2d"]["exact_in_float32"] is True
    assert by_name["transpose-involution-2d"]["float16_error"] == 0
    sensitive = [rule for rule in report["rules"] if not rule["exact_in_float32"]]
    assert report["precision_sensitive"] == len(sensitive) > 0
    assert "matmul.rules" in by_name["matmul-associate"]["location"]


def test_the_table_says_what_it_checked(saturate):
    result = saturate("rules")
    assert result.returncode == 0, result.stderr
    assert "precision-sensitive" in result.stdout
    assert "matmul-associate" in result.stdout and "exact" in result.stdout


def test_a_wrong_rule_in_a_users_file_is_reported_and_exits_3(saturate, tmp_path):
    rules = tmp_path / "mine.rules"
    rules.write_text("good: (transpose (transpose ?x [1 0]) [1 0]) => ?x\n"
                     "wrong: (ewadd ?a ?b) => (ewmul ?a ?b)\n")
    result = saturate("rules", "--rules", rules, "--json")
    assert result.returncode == 3
    report = json.loads(result.stdout)
    assert [rule["name"] for rule in report["rules"]] == ["good", "wrong"]
    assert report["rules"][0]["sound"] is True
    assert report["rules"][1]["sound"] is False and "differ" in report["rules"][1]["failure"]
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1 and "1 of 2 rules are not sound" in lines[0]
