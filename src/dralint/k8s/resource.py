"""The resource.k8s.io API group: its name, versions, kinds, request fields and list limits.

One place for what the rules, migrate, the schema check and plugins all need to
agree on (dra-api-rules.md §4 for the limits).
"""

GROUP = "resource.k8s.io"
CLASSIC_VERSIONS = ("v1alpha1", "v1alpha2")
FLAT_VERSIONS = ("v1alpha3", "v1beta1")
NESTED_VERSIONS = ("v1beta2", "v1")
STRUCTURED_VERSIONS = FLAT_VERSIONS + NESTED_VERSIONS
ALL_VERSIONS = CLASSIC_VERSIONS + STRUCTURED_VERSIONS
CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")


def api_versions(*versions: str) -> list[str]:
    return [f"{GROUP}/{v}" for v in versions]


STRUCTURED = api_versions(*STRUCTURED_VERSIONS)
CLASSIC = api_versions(*CLASSIC_VERSIONS)
EVERY_VERSION = api_versions(*ALL_VERSIONS)

# Limits (dra-api-rules.md §4).
DEVICE_REQUESTS_MAX = 32
DEVICE_CONSTRAINTS_MAX = 32
DEVICE_CONFIG_MAX = 32
DEVICE_SELECTORS_MAX = 32
FIRST_AVAILABLE_MAX = 8
TOLERATIONS_DOCUMENTED_MAX = 16
POD_SCHEDULING_NODE_LIST_MAX = 128

# What `dralint migrate` rewrites to resource.k8s.io/v1: the beta versions, and the kinds that changed shape.
MIGRATION_SOURCES = api_versions("v1beta1", "v1beta2")
MIGRATION_KINDS = ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")

EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity")
ALLOCATION_MODES = ("ExactCount", "All")
