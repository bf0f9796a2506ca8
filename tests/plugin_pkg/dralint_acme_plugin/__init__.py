"""Acme's house rules for DRA manifests (a dralint plugin used by the test suite)."""

from dralint.api import rule


@rule("ACME001", "acme-gpu-limit", severity="error", kinds={"ResourceClaim"}, releases=("1.34", None))
def gpu_limit(doc, report):
    """At most 4 devices per request at Acme.

    Acme's nodes hold 4 GPUs each; a larger count can never be allocated.
    """
    for i, _request in doc.items("spec", "devices", "requests"):
        count = doc.get("spec", "devices", "requests", i, "exactly", "count", type=int)
        if count is not None and count > 4:
            report(("spec", "devices", "requests", i, "exactly", "count"), f"Acme nodes hold 4 GPUs; count {count} can never be allocated")
