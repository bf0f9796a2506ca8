"""A rule with a bug: it fails on claims named `crash-me` (the webhook must answer per --on-error)."""

from dralint.api import rule


@rule("LOCAL901", "crashes-on-request", severity="error", kinds={"ResourceClaim"})
def crashes_on_request(doc, report):
    """Fails on claims named crash-me, as a buggy rule would."""
    if doc.get("metadata", "name") == "crash-me":
        raise KeyError("a bug in a local rule")
