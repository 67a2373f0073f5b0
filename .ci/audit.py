"""Known vulnerabilities in the installed dependencies: pip-audit, then what the index itself says.

    .venv/bin/python .ci/audit.py

pip-audit asks the package index for each installed version's advisories. Where the index answers
only for a project's newest release (some mirrors do), that answer still covers every dependency
installed at its newest version, so those are checked from it. The script prints how many
dependencies were checked each way and which could not be, and exits 1 on any known vulnerability.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

INDEX = "https://pypi.org/pypi/{name}/json"
BIN = Path(sys.executable).parent


def pip_audit() -> list[dict]:
    frozen = subprocess.run(
        [str(BIN / "pip"), "freeze", "--exclude-editable"], check=True, capture_output=True, text=True
    ).stdout
    try:
        result = subprocess.run(
            [str(BIN / "pip-audit"), "--progress-spinner", "off", "-f", "json", "-r", "/dev/stdin"],
            input=frozen,
            capture_output=True,
            text=True,
        )
        output, failure = result.stdout.strip(), f"exit {result.returncode}: {result.stderr.strip()[-300:]}"
    except OSError as exc:
        output, failure = "", str(exc)
    if not output:
        # pip-audit could not run at all (no network, say): every dependency goes to the second check.
        print(f"pip-audit failed ({failure})")
        listed = subprocess.run(
            [str(BIN / "pip"), "list", "--format=json", "--exclude-editable"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        reason = "pip-audit did not run"
        return [{**package, "skip_reason": reason} for package in json.loads(listed)]
    dependencies = json.loads(result.stdout)["dependencies"]
    for dependency in dependencies:
        if "version" not in dependency:  # a skipped one names its version only in the reason
            dependency["version"] = dependency.get("skip_reason", "").rsplit("(", 1)[-1].rstrip(")")
    return dependencies


def newest_release(name: str) -> tuple[str, list[dict]] | None:
    """(newest version, its advisories) from the index, or None if it cannot be asked."""
    try:
        with urllib.request.urlopen(INDEX.format(name=name), timeout=30) as response:  # nosec B310
            data = json.load(response)
    except (OSError, ValueError):
        return None
    return data["info"]["version"], data.get("vulnerabilities") or []


def main() -> int:
    dependencies = pip_audit()
    by_pip_audit, by_index, unchecked, found = 0, 0, [], []
    for dependency in dependencies:
        name, version = dependency["name"], dependency["version"]
        if "skip_reason" not in dependency:
            by_pip_audit += 1
            found += [(name, version, v["id"], v.get("fix_versions", [])) for v in dependency["vulns"]]
            continue
        newest = newest_release(name)
        if newest is None or newest[0] != version:
            unchecked.append(f"{name} {version}" + (f" (newest {newest[0]})" if newest else ""))
            continue
        by_index += 1
        found += [(name, version, v["id"], v.get("fixed_in", [])) for v in newest[1]]
    print(
        f"{len(dependencies)} installed dependencies: {by_pip_audit} checked by pip-audit, {by_index} "
        f"checked from the index's data on their newest release, {len(unchecked)} could not be checked."
    )
    if unchecked:
        print("Not checked (the index gives no advisories for these versions): " + ", ".join(unchecked))
    for name, version, advisory, fixed in found:
        print(f"VULNERABLE: {name} {version}: {advisory}; fixed in {', '.join(fixed) or 'no release yet'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
