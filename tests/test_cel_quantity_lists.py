"""CEL selectors of 1.36/1.37: capacity values are Quantities (operators on them are type errors
at the API server) and `includes()` with DRAListTypeAttributes (issue 11, items 5 and 7)."""

from __future__ import annotations

import pytest

from dralint.cel import compile_selector

MEMORY = 'device.capacity["gpu.example.com"].memory'


@pytest.mark.parametrize("release", ["1.31", "1.35", "1.37"])
def test_ordering_a_quantity_with_an_int_is_a_type_error_at_the_operator(release):
    expression = f"{MEMORY} >= 17179869184"
    [issue] = compile_selector(expression, release)
    assert issue.kind == "type"
    assert (issue.offset, issue.length) == (expression.index(">="), 2)
    assert "'_>=_' applied to '(kubernetes.Quantity, int)'" in issue.message
    assert '.compareTo(quantity("16Gi")) >= 0' in issue.message


@pytest.mark.parametrize(
    "expression, hint",
    [
        (f'17179869184 < {MEMORY}', '.compareTo(quantity("16Gi")) > 0'),  # the operands swapped: the relation mirrored
        ('device.capacity["gpu.example.com"]["memory"] <= 1000', '.compareTo(quantity("1000")) <= 0'),
        (f"{MEMORY} == 3", '.compareTo(quantity("3")) == 0'),
        (f"{MEMORY} + 1 == {MEMORY}", "no arithmetic operators"),
    ],
)
def test_other_operators_on_a_quantity(expression, hint):
    issues = compile_selector(expression, "1.37")
    assert [i.kind for i in issues] == ["type"]
    assert hint in issues[0].message


@pytest.mark.parametrize(
    "expression",
    [
        f'{MEMORY}.compareTo(quantity("16Gi")) >= 0',
        f'{MEMORY}.isGreaterThan(quantity("16Gi"))',
        f'{MEMORY} == quantity("16Gi")',  # _==_ is (A, A): Quantity with Quantity is fine
        'device.attributes["gpu.example.com"].memory >= 3',  # attributes stay dyn
        f'{MEMORY}.asInteger() >= 17179869184',
    ],
)
def test_quantity_methods_and_dyn_attributes_pass(expression):
    assert compile_selector(expression, "1.37") == []


def test_includes_needs_1_36_and_the_list_attributes_gate():
    expression = 'device.attributes["dra.example.com"].models.includes("a100")'
    assert compile_selector(expression, "1.36", feature_gates=["DRAListTypeAttributes"]) == []
    assert compile_selector(expression, "1.37", feature_gates=["DRAListTypeAttributes"]) == []
    [off] = compile_selector(expression, "1.37")
    assert off.kind == "undeclared" and "DRAListTypeAttributes" in off.message
    [early] = compile_selector(expression, "1.35", feature_gates=["DRAListTypeAttributes"])
    assert early.kind == "undeclared" and "from Kubernetes 1.36" in early.message
