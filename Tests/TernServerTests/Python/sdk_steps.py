"""What the Python SDK scripts share: the server they test, from the environment, and the step check.

    from sdk_steps import StepFailure, check, server_from_env
    BASE, TOKEN = server_from_env("FAIL  setup")

The scripts run as `python3 <script>`, so this directory is on sys.path already.
"""

import os
import sys


class StepFailure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise StepFailure(msg)


def server_from_env(fail="FAIL  setup"):
    """(base URL without /v3, master API token) from TERND_URL and TERND_API_TOKEN; exits 2, printing
    `fail` and what to set, when either is missing."""
    base = os.environ.get("TERND_URL", "").strip().rstrip("/")
    token = os.environ.get("TERND_API_TOKEN", "")
    if not base or not token:
        print("%s: set TERND_URL (e.g. http://127.0.0.1:1234) and TERND_API_TOKEN" % fail)
        sys.exit(2)
    if base.endswith("/v3"):  # the SDK's paths already start with /v3
        base = base[:-3]
    return base, token
