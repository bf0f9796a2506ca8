"""Rules handed out by a callable entry point."""

from dralint.api import rule


@rule("ACME002", "acme-team-label", severity="warning", kinds={"ResourceClaim", "ResourceClaimTemplate"})
def team_label(doc, report):
    """Every claim names its owning team in the `acme.example.com/team` label."""
    labels = doc.get("metadata", "labels", type=dict, default={})
    if "acme.example.com/team" not in labels:
        report(("metadata",), "add the label acme.example.com/team: <team>", at_key=True)


def rules():
    return [team_label]
