#!/usr/bin/env python3
"""Counts of the test cases a ctest run ran, from GoogleTest's XML reports (tools/test.sh sets
GTEST_OUTPUT=xml:DIR/): passed, failed and skipped, and each skipped case with its reason, since
ctest reports a test binary whose cases skipped as passed.

    python3 tools/test_summary.py build/test-reports
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "build/test-reports")
    passed = failed = 0
    skipped = []
    for report in sorted(folder.glob("*.xml")):
        try:
            root = ET.parse(report).getroot()
        except ET.ParseError as e:  # a binary that died while writing
            print(f"test summary: {report.name} is not readable XML ({e})")
            continue
        for case in root.iter("testcase"):
            name = f"{report.stem}: {case.get('classname')}.{case.get('name')}"
            if case.find("failure") is not None:
                failed += 1
            elif case.get("result") == "skipped" or case.find("skipped") is not None:
                node = case.find("skipped")
                reason = (node.get("message", "") if node is not None else "").split("\n")
                skipped.append((name, reason[-1] if reason else ""))
            elif case.get("status") == "run":
                passed += 1
    total = passed + failed + len(skipped)
    print(f"\n{total} test cases: {passed} passed, {failed} failed, {len(skipped)} skipped")
    for name, reason in skipped:
        print(f"  skipped {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
