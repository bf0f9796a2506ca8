"""A slow rule: on claims named `slow-judge` it writes its process id to the file named in the
annotation `test.dralint.dev/pid-file`, then takes half a second (so a test can stop the judge
process in the middle of a review)."""

import os
import time

from dralint.api import rule


@rule("LOCAL902", "slow-on-request", severity="error", kinds={"ResourceClaim"})
def slow_on_request(doc, report):
    """Takes half a second on claims named slow-judge, after saying which process judges them."""
    if doc.get("metadata", "name") != "slow-judge":
        return
    pid_file = doc.get("metadata", "annotations", "test.dralint.dev/pid-file")
    with open(pid_file, "a") as out:
        out.write(f"{os.getpid()}\n")
    time.sleep(0.5)
