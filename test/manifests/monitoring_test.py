#!/usr/bin/env python3
"""manifests/monitoring/: the alert rules and the dashboard name only metrics fedhpa exports.

  monitoring_test.py SOURCE_DIR
      promtool check rules and promtool test rules (manifests/monitoring/tests/*.yml); the
      PrometheusRule has the rules file's groups; every metric the rules and the dashboard's
      expressions use is one the sources of federation/ and clusters/ render.
  monitoring_test.py SOURCE_DIR --scrape FILE...
      the same names checked against real /metrics scrapes instead (the e2e passes them): each
      must be declared by a `# TYPE` line (a histogram's _bucket, _sum and _count included).
"""
import json
import pathlib
import re
import subprocess
import sys

import yaml

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset",
            "inf", "nan"}
PREFIXES = ("fedhpa_", "apiserver_", "leader_election_")


def metric_names(expr):
    """The metric names a PromQL expression reads: identifiers that are not functions, keywords,
    label names (in {} matchers or by/without/on/ignoring lists), strings, durations or variables."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)             # strings
    text = re.sub(r"\{[^}]*\}", " ", text)                        # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)                       # ranges
    text = re.sub(r"\$\{?\w+\}?", " ", text)                      # Grafana variables
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w.])([A-Za-z_:][\w:]*)\s*(\()?", text):
        name, call = match.group(1), match.group(2)
        if call or name.lower() in KEYWORDS:
            continue
        names.add(name)
    return names


def dashboard_exprs(dashboard):
    exprs = []
    def panels(items):
        for panel in items:
            yield panel
            yield from panels(panel.get("panels", []))
    for panel in panels(dashboard["panels"]):
        for target in panel.get("targets", []):
            exprs.append((f"panel {panel['title']!r} {target['refId']}", target["expr"]))
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]["query"]
            inner = re.fullmatch(r"label_values\((.*),\s*\w+\)", query)
            exprs.append((f"variable {variable['name']}", inner.group(1) if inner else query))
    return exprs


def rule_exprs(rules):
    return [(f"rule {rule.get('alert') or rule.get('record')}", rule["expr"]) for group in rules["groups"] for rule in group["rules"]]


def exported_by_sources(source_dir):
    names = set()
    for path in list((source_dir / "federation").rglob("*.cc")) + list((source_dir / "clusters").rglob("*.cc")):
        names.update(re.findall(r"\b((?:fedhpa|apiserver|leader_election)_[a-z0-9_]+)\b", path.read_text(errors="replace")))
    return names


def exported_by_scrapes(files):
    names = set()
    for path in files:
        for line in pathlib.Path(path).read_text().splitlines():
            match = re.match(r"# TYPE (\S+) (\w+)", line)
            if match:
                name, kind = match.groups()
                names.add(name)
                if kind in ("histogram", "summary"):
                    names.update({name + "_bucket", name + "_sum", name + "_count"})
    return names


def main():
    source_dir = pathlib.Path(sys.argv[1])
    monitoring = source_dir / "manifests" / "monitoring"
    rules_file = monitoring / "fedhpa-alerts.rules.yml"
    failures = []
    scrapes = sys.argv[3:] if sys.argv[2:3] == ["--scrape"] else None
    if scrapes is None:
        tests = sorted(str(p) for p in (monitoring / "tests").glob("*.yml"))
        for command in (["promtool", "check", "rules", str(rules_file)], ["promtool", "test", "rules", *tests],
                        [sys.executable, str(monitoring / "prometheusrule.py"), "--check"]):
            done = subprocess.run(command, capture_output=True, text=True)
            print(done.stdout + done.stderr, end="")
            if done.returncode != 0:
                failures.append(" ".join(command[:3]))
        # Every alert has a test: a rule nobody ever evaluated could be silently wrong.
        tested = set()
        for test_file in tests:
            for case in yaml.safe_load(pathlib.Path(test_file).read_text())["tests"]:
                for alert_test in case.get("alert_rule_test", []):
                    if alert_test.get("exp_alerts"):
                        tested.add(alert_test["alertname"])
        for group in yaml.safe_load(rules_file.read_text())["groups"]:
            for rule in group["rules"]:
                if "alert" in rule and rule["alert"] not in tested:
                    failures.append(f"no promtool test sees {rule['alert']} fire")
    exported = exported_by_scrapes(scrapes) if scrapes is not None else exported_by_sources(source_dir)
    dashboard = json.loads((monitoring / "fedhpa-dashboard.json").read_text())
    exprs = rule_exprs(yaml.safe_load(rules_file.read_text())) + dashboard_exprs(dashboard)
    checked = set()
    for where, expr in exprs:
        for name in metric_names(expr):
            checked.add(name)
            if not name.startswith(PREFIXES) or name not in exported:
                failures.append(f"{where}: {name} is not a metric fedhpa exports")
    print(f"{len(exprs)} expressions, {len(checked)} metric names: {', '.join(sorted(checked))}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
