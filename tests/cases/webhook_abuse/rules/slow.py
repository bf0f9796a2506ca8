"""A slow rule: on claims named `slow-judge` it writes its process id to the file named in the
annotation `test.dralint.dev/pid-file`; the first judge of such a claim then takes ten seconds (so
a test can stop that judge in the middle of a review), and a judge that judges it again, with the
file no longer empty, answers at once."""

import os
import time

from dralint.api import rule


@rule("LOCAL902", "slow-on-request", severity="error", kinds={"ResourceClaim"})
def slow_on_request(doc, report):
    """Takes ten seconds on the first judging of a claim named slow-judge, after saying which process judges it."""
    if doc.get("metadata", "name") != "slow-judge":
        return
    pid_file = doc.get("metadata", "annotations", "test.dralint.dev/pid-file")
    with open(pid_file, "a+") as out:
        out.seek(0)
        first = not out.read()
        out.write(f"{os.getpid()}\n")
    if first:
        time.sleep(10)
