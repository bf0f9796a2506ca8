"""What a DeviceTaintRule without `spec.deviceSelector` taints, which changed in 1.38.

Not an API-server error: the controller that applies DeviceTaintRules decides.
Up to 1.37 a rule without a selector matched every device; from 1.38 it matches
none (kubernetes#141648; the field's comment "Without a selector, no devices are
matched" was already in 1.37's types). A rule written to taint everything then
does nothing, silently, so dralint says so.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.resource import STRUCTURED


@rule("DRA591", "taint-rule-without-selector", severity="info", kinds=["DeviceTaintRule"], api_versions=STRUCTURED, releases=("1.38", None), needs=("spec",))
def taint_rule_without_selector(doc, report):
    """A DeviceTaintRule without `spec.deviceSelector` matches no device from Kubernetes 1.38.

    Why: up to 1.37 such a rule tainted every device in the cluster; from 1.38
    (kubernetes#141648) it taints none, so a rule meant to cover everything stops working.

    Invalid: `spec: {taint: {key: example.com/maintenance, effect: NoSchedule}}` (reported as info).
    Valid: the same with `deviceSelector: {driver: gpu.example.com}`.

    Upstream: policy. It follows the DeviceTaintRule controller's selector semantics
    (pkg/controller/devicetainteviction), not an API-server check.
    """
    spec = doc.get("spec", type=dict)
    if spec is None or spec.get("deviceSelector") is not None:
        return
    report(("spec",), "without spec.deviceSelector this rule matches no device from Kubernetes 1.38 (up to 1.37 it tainted every device); "
           "add a deviceSelector naming the devices to taint", at_key=True)
